import Foundation

/// RFC 3339 times in UTC (`2026-11-25T23:43:38Z`, `...38.123Z`) as the journal, event and
/// replica records and signed requests carry them. Computed from the calendar arithmetic
/// alone: Foundation's `ISO8601DateFormatter` goes through ICU, which maps megabytes of ICU
/// data into a door terminal that otherwise never needs it.
public enum UTCTimestamp {
    /// Reads an RFC 3339 date-time, with or without fractional seconds; nil when the text is
    /// not one. Through ISO8601DateFormatter (ICU): for the site server's checks of what
    /// doors send, not for a door's own hot path.
    public static func parse(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
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

    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let remainder = ((value % divisor) + divisor) % divisor
        return ((value - remainder) / divisor, remainder)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
