import Foundation

/// RFC 3339 times in UTC (`2026-11-25T23:43:38Z`, `...38.123Z`) as the journal, event and
/// replica records and signed requests carry them. Written and read with the calendar
/// arithmetic alone: Foundation's `ISO8601DateFormatter` goes through ICU, which maps
/// megabytes of ICU data into a door terminal that otherwise never needs it, and whose set-up
/// cost the site server paid on every request.
public enum UTCTimestamp {
    /// Reads an RFC 3339 date-time (`2026-11-20T10:00:00Z`, `...00.5Z`, `...00+01:00`), with
    /// or without fractional seconds; nil when the text is not one. Read as bytes, without
    /// ICU: the site server reads one on every `/verify`. A second of 60 (a leap second) is
    /// refused, as Foundation's `ISO8601DateFormatter` refuses it.
    public static func parse(_ text: String) -> Date? {
        var reader = FieldReader(bytes: Array(text.utf8))
        guard let year = reader.number(4), reader.skip("-"), let month = reader.number(2), reader.skip("-"),
            let day = reader.number(2), reader.skip("T") || reader.skip("t"),
            let hour = reader.number(2), reader.skip(":"), let minute = reader.number(2), reader.skip(":"), let second = reader.number(2),
            (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), hour < 24, minute < 60, second < 60
        else { return nil }
        var fraction = 0.0
        if reader.skip(".") {
            let digits = reader.digits()
            guard !digits.isEmpty else { return nil }
            var scale = 0.1
            for digit in digits.prefix(9) {
                fraction += Double(digit) * scale
                scale /= 10
            }
        }
        var offset: Int64 = 0
        if reader.skip("Z") || reader.skip("z") {
            offset = 0
        } else if let sign: Int64 = reader.skip("+") ? 1 : reader.skip("-") ? -1 : nil {
            guard let hours = reader.number(2), reader.skip(":"), let minutes = reader.number(2), hours < 24, minutes < 60 else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        } else {
            return nil
        }
        guard reader.atEnd else { return nil }
        let seconds = daysFromCivil(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// `date` in UTC to the second, or to the millisecond (truncated, as ISO8601DateFormatter does).
    public static func rfc3339(_ date: Date, milliseconds: Bool = false) -> String {
        // To the nearest microsecond first: a Double of whole milliseconds times 1000 can land
        // just below the whole number.
        let microseconds = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        let (seconds, microsecond) = floorDivision(microseconds, 1_000_000)
        let millisecond = microsecond / 1000
        let (days, secondOfDay) = floorDivision(seconds, 86_400)
        let (year, month, day) = civilDate(daysSince1970: days)
        var text = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
        text += "T" + pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
        if milliseconds { text += "." + pad(millisecond, 3) }
        return text + "Z"
    }

    /// Year, month and day of the proleptic Gregorian calendar (Howard Hinnant's civil_from_days).
    static func civilDate(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil);
    /// also what access rules' dates are counted in (`SiteDate`).
    public static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Days in `month` (1 to 12) of `year`, Gregorian leap years included.
    public static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Reads fixed-width decimal fields and separators from the front of the bytes.
    private struct FieldReader {
        let bytes: [UInt8]
        var index = 0

        var atEnd: Bool { index == bytes.count }

        /// Exactly `width` decimal digits as a number; nil (reading nothing) otherwise.
        mutating func number(_ width: Int) -> Int64? {
            guard index + width <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[index..<index + width] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            index += width
            return value
        }

        /// The decimal digits from here on, each 0 to 9.
        mutating func digits() -> [Int] {
            var found: [Int] = []
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                found.append(Int(bytes[index] - UInt8(ascii: "0")))
                index += 1
            }
            return found
        }

        /// Reads `separator` if it comes next.
        mutating func skip(_ separator: Unicode.Scalar) -> Bool {
            guard index < bytes.count, bytes[index] == UInt8(ascii: separator) else { return false }
            index += 1
            return true
        }
    }

    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let remainder = ((value % divisor) + divisor) % divisor
        return ((value - remainder) / divisor, remainder)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
