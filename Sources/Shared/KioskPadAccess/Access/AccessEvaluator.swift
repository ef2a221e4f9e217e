import Foundation
import KioskPadCore

/// The one place that decides whether a matched user may open a door now, for the site
/// server and for a terminal's local verifier alike. Pure: no I/O, the time passed in.
///
/// Order: disabled, then the door, then a lockdown (only responders pass), then (only for
/// a rule with a schedule or validity) the clock must be trusted, then not yet valid,
/// expired, a holiday (a scheduled user is refused, or the holiday's own schedule decides),
/// outside the schedule. The first that applies is the reason; nil means the rule permits.
public enum AccessEvaluator {
    /// - Parameters:
    ///   - rule: the user's rule (nil: every door, always).
    ///   - schedule: the compiled schedule the rule names, nil when it names none or an
    ///     unknown one (an unknown schedule refuses: fail secure).
    ///   - now: the site's wall-clock time, or nil when the clock cannot be trusted.
    ///   - holidays: the site's calendar (only scheduled users look at it).
    ///   - lockdown: whether `door` is in lockdown now.
    public static func refusal(
        _ rule: AccessRule?, schedule: WeeklySchedule?, door: String, now: SiteTime?, holidays: HolidayCalendar = .none, lockdown: Bool = false
    ) -> DenialReason? {
        guard let rule else { return lockdown ? .lockdown : nil }
        if rule.disabled { return .disabled }
        if let doors = rule.doors, !doors.contains(door) { return .notPermittedHere }
        if lockdown && !rule.responder { return .lockdown }
        guard rule.needsClock else { return nil }
        guard let now else { return .clockNotTrusted }
        if let from = rule.validFrom, now < from.start { return .notYetValid }
        if let until = rule.validUntil, now >= until.end { return .expired }
        guard rule.schedule != nil else { return nil }
        if let holiday = holidays.inForce(at: now) {
            return holiday.replacement?.contains(minuteOfWeek: now.minuteOfWeek) == true ? nil : .holiday
        }
        return schedule?.contains(minuteOfWeek: now.minuteOfWeek) == true ? nil : .outsideSchedule
    }

    /// The same order for a rule with levels or groups, by what its grants give at the door
    /// (``CompiledAccessLevels/access(of:at:)``): `schedules` are the compiled schedules
    /// `access` names that the site has (an unknown one admits at no minute: fail secure).
    public static func refusal(
        _ rule: AccessRule, access: DoorAccess, schedules: [WeeklySchedule], now: SiteTime?, holidays: HolidayCalendar = .none, lockdown: Bool = false
    ) -> DenialReason? {
        if rule.disabled { return .disabled }
        if !access.opens { return .notPermittedHere }
        if lockdown && !rule.responder { return .lockdown }
        guard access.schedules != nil || rule.validFrom != nil || rule.validUntil != nil else { return nil }
        guard let now else { return .clockNotTrusted }
        if let from = rule.validFrom, now < from.start { return .notYetValid }
        if let until = rule.validUntil, now >= until.end { return .expired }
        guard access.schedules != nil else { return nil }
        if let holiday = holidays.inForce(at: now) {
            return holiday.replacement?.contains(minuteOfWeek: now.minuteOfWeek) == true ? nil : .holiday
        }
        return schedules.contains { $0.contains(minuteOfWeek: now.minuteOfWeek) } ? nil : .outsideSchedule
    }
}
