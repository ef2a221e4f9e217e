import Foundation
import KioskPadCore

/// A day of the site's calendar, or part of one, on which users' weekly schedules do not
/// apply: a user with a schedule is refused (`holiday`), or, when the holiday names a
/// schedule of its own, that schedule decides in place of theirs. Users without a schedule
/// (every day, always) are not affected. Local wall-clock time, like schedules.
public struct Holiday: Sendable, Equatable {
    /// The date (no time).
    public let day: SiteDate
    /// The part of the day it covers, minutes since midnight: `0..<1440` for the whole day.
    public let minutes: Range<Int>
    /// A schedule that applies in place of users' own; nil: scheduled users are refused.
    public let schedule: String?
    /// What the administrator calls it (`Christmas Day`); for lists, never for decisions.
    public let label: String

    public static let grammar =
        "DATE [HH:MM-HH:MM] [schedule=NAME] [LABEL], e.g. 2026-12-25 Christmas Day, or 2026-12-24 12:00-24:00 schedule=holiday-hours Christmas Eve"

    public init(day: SiteDate, minutes: Range<Int> = 0..<1440, schedule: String? = nil, label: String = "") throws {
        guard day.minute == nil else { throw AccessRule.RuleError(description: "holiday \(day): a holiday is a date (YYYY-MM-DD); give its hours apart") }
        guard minutes.lowerBound >= 0, minutes.upperBound <= 1440, !minutes.isEmpty else {
            throw AccessRule.RuleError(description: "holiday \(day): its hours must be HH:MM-HH:MM within the day, the end after the start (up to 24:00)")
        }
        if let schedule, !Identifier.isValid(schedule) || schedule == "always" {
            throw AccessRule.RuleError(description: "holiday \(day): schedule=\(schedule): a schedule name is 1-64 of letters, digits, '.', '_' or '-'")
        }
        guard label.count <= 64, !label.contains("="), label.unicodeScalars.allSatisfy({ !CharacterSet.controlCharacters.contains($0) }) else {
            throw AccessRule.RuleError(description: "holiday \(day): a label is at most 64 characters, without '=' or control characters")
        }
        self.day = day
        self.minutes = minutes
        self.schedule = schedule
        self.label = label.trimmingCharacters(in: .whitespaces)
    }

    /// A holiday from the words after its date: an optional `HH:MM-HH:MM`, an optional
    /// `schedule=NAME`, then the label (or `label`, when it is kept apart: a database column,
    /// a form field); an error names the word and what would be valid.
    public init(day text: String, words: [Substring], label: String? = nil) throws {
        let day = try Self.date(text)
        var minutes = 0..<1440
        var schedule: String?
        var rest = words[...]
        // Hours look like 12:00-24:00; a label may start with a digit ("1st of May"), but a
        // first word that starts with a digit and holds ':' is meant as hours and must be them.
        if let first = rest.first, first.first?.isNumber == true, first.contains(":") {
            minutes = try Self.hours(first, day: text)
            rest = rest.dropFirst()
        }
        if let first = rest.first, first.hasPrefix("schedule=") {
            schedule = String(first.dropFirst("schedule=".count))
            rest = rest.dropFirst()
        }
        if let stray = rest.first(where: { $0.contains("=") }) {
            throw AccessRule.RuleError(description: "holiday \(text): '\(stray)' is not known; valid: \(Self.grammar)")
        }
        try self.init(day: day, minutes: minutes, schedule: schedule, label: label ?? rest.joined(separator: " "))
    }

    /// A holiday from its parts kept apart (`holiday set --hours --schedule --label`, the
    /// console's form): `hours` nil or empty is the whole day, anything else must be
    /// `HH:MM-HH:MM`; an error names the part (`hoursField`: what the caller calls it) and
    /// what would be valid.
    public init(day text: String, hours: String?, schedule: String?, label: String, hoursField: String = "--hours") throws {
        let day = try Self.date(text)
        let minutes =
            try hours.map {
                try Self.hours(Substring($0), day: text, option: "\(hoursField) ", whole: " (leave \(hoursField) out for the whole day)")
            } ?? 0..<1440
        try self.init(day: day, minutes: minutes, schedule: schedule, label: label)
    }

    /// `text` as a holiday's date; an error tells a malformed date from one the calendar lacks.
    public static func date(_ text: String) throws -> SiteDate {
        if let day = SiteDate(parsing: text), day.minute == nil { return day }
        if SiteDate.isMissingFromCalendar(text) {
            throw AccessRule.RuleError(description: "holiday date '\(text)' is not a day of the calendar (that month has no such day)")
        }
        throw AccessRule.RuleError(description: "holiday date '\(text)' is not YYYY-MM-DD, e.g. 2026-12-25")
    }

    /// `HH:MM-HH:MM` within the day, the end after the start (up to 24:00), as minutes.
    static func hours(_ text: Substring, day: String, option: String = "", whole: String = "") throws -> Range<Int> {
        let ends = text.split(separator: "-", omittingEmptySubsequences: false)
        guard ends.count == 2, let start = WeeklySchedule.minute(ends[0]), let end = WeeklySchedule.minute(ends[1]), start < end else {
            throw AccessRule.RuleError(
                description: "holiday \(day): \(option)'\(text)' is not its hours; write HH:MM-HH:MM within the day, e.g. 12:00-24:00\(whole)")
        }
        return start..<end
    }

    /// What decides, as stored and carried in replicas: `[HH:MM-HH:MM] [schedule=NAME]`
    /// (empty for a whole day without a schedule). The label is not part of it.
    public var rule: String {
        var words: [String] = []
        if minutes != 0..<1440 { words.append("\(Self.clock(minutes.lowerBound))-\(Self.clock(minutes.upperBound))") }
        if let schedule { words.append("schedule=\(schedule)") }
        return words.joined(separator: " ")
    }

    /// The whole line after `@holiday`: the date, ``rule`` and the label.
    public var line: String {
        ([day.description, rule, label].filter { !$0.isEmpty }).joined(separator: " ")
    }

    public static func clock(_ minute: Int) -> String { String(format: "%02d:%02d", minute / 60, minute % 60) }
}

/// The site's holidays made ready to decide: one lookup by local day. A holiday whose
/// schedule is unknown refuses every scheduled user that day (fail secure).
public struct HolidayCalendar: Sendable {
    /// One day's holiday as it decides.
    public struct InForce: Sendable {
        let minutes: Range<Int>
        let replacement: WeeklySchedule?
    }

    private let days: [Int64: InForce]

    public static let none = HolidayCalendar(days: [:])

    private init(days: [Int64: InForce]) {
        self.days = days
    }

    /// `holidays`, each replacement schedule found in `schedules`.
    public init(_ holidays: some Sequence<Holiday>, schedules: [String: WeeklySchedule]) {
        self.init(holidays.map { ($0, $0.schedule.flatMap { schedules[$0] }) })
    }

    /// Each holiday with its replacement schedule compiled (nil: none, or unknown).
    public init(_ holidays: [(Holiday, WeeklySchedule?)]) {
        var days: [Int64: InForce] = [:]
        for (holiday, replacement) in holidays {
            days[SiteTime.floorDivide(holiday.day.start.localSeconds, 86_400)] = InForce(minutes: holiday.minutes, replacement: replacement)
        }
        self.days = days
    }

    public var isEmpty: Bool { days.isEmpty }

    /// The holiday in force at `now`, if any.
    func inForce(at now: SiteTime) -> InForce? {
        guard !days.isEmpty else { return nil }
        let day = SiteTime.floorDivide(now.localSeconds, 86_400)
        guard let holiday = days[day] else { return nil }
        return holiday.minutes.contains(Int(now.localSeconds - day * 86_400) / 60) ? holiday : nil
    }
}
