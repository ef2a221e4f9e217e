import Foundation
import KioskPadStorage

/// A moment in the site's wall-clock time, as access rules read it: seconds since
/// 1970-01-01 00:00 *local* (the instant plus the zone's offset at that instant), so
/// schedules and validity dates compare with plain integers.
public struct SiteTime: Sendable, Equatable, Comparable {
    public let localSeconds: Int64

    public init(localSeconds: Int64) {
        self.localSeconds = localSeconds
    }

    /// `instant` as the clocks on the site's walls show it in `zone`.
    public init(_ instant: Date, in zone: TimeZone) {
        let seconds = Int64(instant.timeIntervalSince1970.rounded(.down))
        localSeconds = seconds + Int64(zone.secondsFromGMT(for: instant))
    }

    /// Minutes since Monday 00:00 of this week (0 to 10079).
    public var minuteOfWeek: Int {
        let days = Self.floorDivide(localSeconds, 86_400)
        let weekday = Int(((days + 3) % 7 + 7) % 7)  // 1970-01-01 was a Thursday (Monday is 0).
        return weekday * 1440 + Int(localSeconds - days * 86_400) / 60
    }

    public static func < (a: SiteTime, b: SiteTime) -> Bool { a.localSeconds < b.localSeconds }

    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let quotient = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient
    }
}

/// A validity bound as an administrator writes it, in the site's time zone: a date
/// (`2026-12-31`) or a date and time (`2026-12-31T18:00`, or with a space).
public struct SiteDate: Sendable, Equatable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int
    /// Minutes since midnight, or nil for a date alone.
    public let minute: Int?

    /// What a bad value gets told, naming what would be valid.
    public static let format = "YYYY-MM-DD or YYYY-MM-DDTHH:MM in the site's time zone, e.g. 2026-12-31 or 2026-12-31T18:00"

    public init?(parsing raw: String) {
        // Read as bytes: a stored rule's dates are parsed on the server's decision path.
        let bytes = Array(raw[...].trimmingSpaces.utf8)
        guard bytes.count == 10 || (bytes.count == 16 && (bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " "))),
            bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            let year = Self.number(bytes, 0..<4), let month = Self.number(bytes, 5..<7), let day = Self.number(bytes, 8..<10),
            (1...12).contains(month), day >= 1, day <= UTCTimestamp.daysIn(month: Int64(month), year: Int64(year))
        else { return nil }
        var minute: Int?
        if bytes.count == 16 {
            guard bytes[13] == UInt8(ascii: ":"), let hour = Self.number(bytes, 11..<13), let minutes = Self.number(bytes, 14..<16),
                hour < 24, minutes < 60
            else { return nil }
            minute = hour * 60 + minutes
        }
        self.year = year
        self.month = month
        self.day = day
        self.minute = minute
    }

    /// True for a `YYYY-MM-DD` whose month is 1-12 and day 1-31 but which that month lacks
    /// (2026-02-30, 2026-04-31): a date to name as missing from the calendar, not as malformed.
    public static func isMissingFromCalendar(_ raw: String) -> Bool {
        let bytes = Array(raw[...].trimmingSpaces.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), let year = number(bytes, 0..<4),
            let month = number(bytes, 5..<7), let day = number(bytes, 8..<10), (1...12).contains(month), (1...31).contains(day)
        else { return false }
        return Int64(day) > UTCTimestamp.daysIn(month: Int64(month), year: Int64(year))
    }

    /// The decimal digits of `bytes[range]` as a number; nil if any is not a digit.
    private static func number(_ bytes: [UInt8], _ range: Range<Int>) -> Int? {
        var value = 0
        for byte in bytes[range] {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// As written back: `2026-12-31` or `2026-12-31T18:00`.
    public var description: String {
        let date = String(format: "%04d-%02d-%02d", year, month, day)
        guard let minute else { return date }
        return date + String(format: "T%02d:%02d", minute / 60, minute % 60)
    }

    /// The first local second it covers as a start (`valid_from`): its time, or the start of the day.
    public var start: SiteTime {
        SiteTime(localSeconds: UTCTimestamp.daysFromCivil(year: Int64(year), month: Int64(month), day: Int64(day)) * 86_400 + Int64(minute ?? 0) * 60)
    }

    /// The first local second after it as an end (`valid_until`): its time, or the start of the next day.
    public var end: SiteTime {
        minute == nil ? SiteTime(localSeconds: start.localSeconds + 86_400) : start
    }

}
