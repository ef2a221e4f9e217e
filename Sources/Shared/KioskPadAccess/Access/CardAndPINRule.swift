import Foundation

/// A door that asks for two factors: a card, then its holder's own PIN. Always, or only in
/// the windows of a named schedule (`after-hours`). With a schedule, both are asked for all
/// day on a holiday and whenever the door's clock cannot be trusted: the stricter rule when
/// in doubt. A card alone, a PIN alone or a code is refused there (`second_factor_required`).
public struct CardAndPINRule: Sendable, Equatable {
    /// A schedule's name; nil: always.
    public var schedule: String?

    public init(schedule: String? = nil) {
        self.schedule = schedule
    }

    /// As stored and carried in replicas: `always` or `schedule=NAME`.
    public var rule: String { schedule.map { "schedule=\($0)" } ?? "always" }

    /// From ``rule``; nil for text that is not one.
    public init?(rule: String) {
        if rule == "always" {
            self.init()
        } else if rule.hasPrefix("schedule="), !rule.contains(" "), rule.count > "schedule=".count {
            self.init(schedule: String(rule.dropFirst("schedule=".count)))
        } else {
            return nil
        }
    }

    /// From the words after a door in `@card_pin DOOR [schedule=NAME]` (and the CLI's
    /// `--schedule`); an error names what is valid.
    public init(words: [Substring]) throws {
        guard words.count <= 1 else { throw AccessRule.RuleError(description: "write \(Self.grammar)") }
        guard let word = words.first else {
            self.init()
            return
        }
        guard word.hasPrefix("schedule="), word.count > "schedule=".count else {
            throw AccessRule.RuleError(description: "'\(word)' is not schedule=NAME; write \(Self.grammar)")
        }
        let name = String(word.dropFirst("schedule=".count))
        self.init(schedule: name == "always" ? nil : name)
    }

    /// How the users file writes it, after `@card_pin`.
    public static let grammar = "@card_pin DOOR [schedule=NAME] (card and PIN always, or in the schedule's windows)"
}

extension AccessEvaluator {
    /// Whether `rule` asks for a card and a PIN at `now` (the site's time, nil when the clock
    /// cannot be trusted). Without a rule: never. With a schedule: in its windows, all day on
    /// a holiday, and always when the clock is not trusted or the schedule is unknown.
    public static func secondFactorRequired(
        _ rule: CardAndPINRule?, schedule: WeeklySchedule?, now: SiteTime?, holidays: HolidayCalendar = .none
    ) -> Bool {
        guard let rule else { return false }
        guard rule.schedule != nil else { return true }
        guard let now, let schedule else { return true }
        if holidays.inForce(at: now) != nil { return true }
        return schedule.contains(minuteOfWeek: now.minuteOfWeek)
    }
}
