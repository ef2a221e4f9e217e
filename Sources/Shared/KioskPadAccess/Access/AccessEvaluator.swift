import Foundation

/// The one place that decides whether a matched user may open a door now, for the site
/// server and for a terminal's local verifier alike. Pure: no I/O, the time passed in.
///
/// Order: disabled, then the door, then (only for a rule with a schedule or validity) the
/// clock must be trusted, then not yet valid, expired, outside the schedule. The first
/// that applies is the reason; nil means the rule permits.
public enum AccessEvaluator {
    /// - Parameters:
    ///   - rule: the user's rule (nil: every door, always).
    ///   - schedule: the compiled schedule the rule names, nil when it names none or an
    ///     unknown one (an unknown schedule refuses: fail secure).
    ///   - now: the site's wall-clock time, or nil when the clock cannot be trusted.
    public static func refusal(_ rule: AccessRule?, schedule: WeeklySchedule?, door: String, now: SiteTime?) -> AccessRefusal? {
        guard let rule else { return nil }
        if rule.disabled { return .disabled }
        if let doors = rule.doors, !doors.contains(door) { return .notPermittedHere }
        guard rule.needsClock else { return nil }
        guard let now else { return .clockNotTrusted }
        if let from = rule.validFrom, now < from.start { return .notYetValid }
        if let until = rule.validUntil, now >= until.end { return .expired }
        if rule.schedule != nil, schedule?.contains(minuteOfWeek: now.minuteOfWeek) != true { return .outsideSchedule }
        return nil
    }
}
