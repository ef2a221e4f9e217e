import Foundation

/// A named schedule's weekly windows in the site's wall-clock time, e.g.
/// `mon-fri 18:00-21:00; sat 08:00-12:00`, compiled to one bit per minute of the week, so a
/// check is one bit read. A window whose end is not after its start crosses midnight into
/// the next day (`fri 22:00-02:00` runs from Friday 22:00 to Saturday 02:00; Sunday's runs
/// into Monday). Wall-clock time: on the night a clock springs forward, the skipped hour
/// matches nothing; when it falls back, the repeated hour matches twice.
public struct WeeklySchedule: Sendable, Equatable {
    public static let minutesPerWeek = 7 * 1440
    /// The spec as given (trimmed).
    public let spec: String
    private var bits: [UInt64]

    /// A spec that cannot be parsed: which part, and what would be valid.
    public struct SpecError: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    public static let grammar =
        "PART; PART; ... where a PART is DAYS [HH:MM-HH:MM[,HH:MM-HH:MM...]], DAYS is daily or mon..sun, ranges (mon-fri) and lists (sat,sun), e.g. \"mon-fri 18:00-21:00; sat 08:00-12:00\""

    public init(parsing text: String) throws {
        spec = text.trimmingCharacters(in: .whitespaces)
        bits = [UInt64](repeating: 0, count: (Self.minutesPerWeek + 63) / 64)
        guard !spec.isEmpty else { throw SpecError(description: "the schedule is empty; valid: \(Self.grammar)") }
        for (index, rawPart) in spec.split(separator: ";", omittingEmptySubsequences: false).enumerated() {
            let part = rawPart.trimmingCharacters(in: .whitespaces)
            let fail = { (why: String) in SpecError(description: "part \(index + 1) (\"\(part)\"): \(why)") }
            guard !part.isEmpty else { throw fail("is empty; valid: \(Self.grammar)") }
            // Days come first; the first character that is a digit starts the times.
            let split = part.firstIndex(where: \.isNumber) ?? part.endIndex
            let daysText = part[..<split].filter { !$0.isWhitespace }.lowercased()
            let timesText = part[split...].filter { !$0.isWhitespace }
            let days = try Self.days(daysText, fail: fail)
            let windows =
                timesText.isEmpty
                ? [(0, 1440)] : try timesText.split(separator: ",", omittingEmptySubsequences: false).map { try Self.window(String($0), fail: fail) }
            for day in days {
                for (start, end) in windows { set(day: day, start: start, end: end) }
            }
        }
    }

    /// Every minute any of `schedules` holds (nil for none): the schedule of a rule that names
    /// several (``AccessLevels/rule(_:at:)``). Its spec is theirs joined with `; `.
    public init?(union schedules: [WeeklySchedule]) {
        guard var union = schedules.first else { return nil }
        for other in schedules.dropFirst() {
            for index in union.bits.indices { union.bits[index] |= other.bits[index] }
        }
        self.spec = schedules.map(\.spec).joined(separator: "; ")
        self.bits = union.bits
    }

    /// Whether minute `minuteOfWeek` (0 is Monday 00:00 in the site's wall-clock time) is in a window.
    public func contains(minuteOfWeek minute: Int) -> Bool {
        guard minute >= 0, minute < Self.minutesPerWeek else { return false }
        return bits[minute >> 6] & (1 << UInt64(minute & 63)) != 0
    }

    private mutating func set(day: Int, start: Int, end: Int) {
        if end > start {
            setRange(day * 1440 + start, day * 1440 + end)
        } else {
            setRange(day * 1440 + start, day * 1440 + 1440)
            let next = (day + 1) % 7
            setRange(next * 1440, next * 1440 + end)
        }
    }

    private mutating func setRange(_ from: Int, _ to: Int) {
        for minute in from..<to { bits[minute >> 6] |= 1 << UInt64(minute & 63) }
    }

    static let dayNames = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    /// `daily`, or a comma list of days and day ranges (`fri-mon` wraps over the weekend); Monday is 0.
    private static func days(_ text: String, fail: (String) -> SpecError) throws -> [Int] {
        guard !text.isEmpty else { throw fail("names no days; start with daily or days such as mon-fri or sat,sun") }
        if text == "daily" { return Array(0..<7) }
        var days: [Int] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let ends = item.split(separator: "-", omittingEmptySubsequences: false)
            let indices = try ends.map { name -> Int in
                guard let day = dayNames.firstIndex(of: String(name)) else {
                    throw fail("'\(name)' is not a day; valid: mon, tue, wed, thu, fri, sat, sun, ranges such as mon-fri, or daily")
                }
                return day
            }
            switch indices.count {
            case 1: days.append(indices[0])
            case 2:
                var day = indices[0]
                days.append(day)
                while day != indices[1] {
                    day = (day + 1) % 7
                    days.append(day)
                }
            default: throw fail("'\(item)' is not a day range; write it as mon-fri")
            }
        }
        return days
    }

    /// `HH:MM-HH:MM` as minutes of the day; the end may be 24:00, and before the start (crossing midnight).
    private static func window(_ text: String, fail: (String) -> SpecError) throws -> (Int, Int) {
        let ends = text.split(separator: "-", omittingEmptySubsequences: false)
        guard ends.count == 2 else { throw fail("'\(text)' is not a time range; write it as HH:MM-HH:MM, e.g. 18:00-21:00") }
        guard let start = minute(ends[0]), start < 1440 else { throw fail("'\(ends[0])' is not a start time (HH:MM, 00:00 to 23:59)") }
        guard let end = minute(ends[1]) else { throw fail("'\(ends[1])' is not an end time (HH:MM, 00:00 to 24:00)") }
        guard end != start else { throw fail("'\(text)' is empty (start and end are the same time); for a whole day write 00:00-24:00") }
        return (start, end)
    }

    /// `HH:MM` (24:00 allowed) as minutes since midnight.
    static func minute(_ text: Substring) -> Int? {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 2, fields[0].count == 2, fields[1].count == 2,
            fields.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }), let hour = Int(fields[0]), let minute = Int(fields[1]),
            (0...24).contains(hour), (0...59).contains(minute), hour < 24 || minute == 0
        else { return nil }
        return hour * 60 + minute
    }
}
