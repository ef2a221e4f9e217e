import Foundation

/// A door held unlocked during the windows of a named schedule (opening hours), and, with
/// `firstIn`, only once a user marked `staff` has entered there that day: the first person
/// in opens the door for everyone else.
public struct DoorUnlockSchedule: Sendable, Equatable {
    /// A schedule's name.
    public var schedule: String
    public var firstIn: Bool

    public init(schedule: String, firstIn: Bool = false) {
        self.schedule = schedule
        self.firstIn = firstIn
    }

    /// As stored and carried in replicas: `schedule=NAME` and `first_in`.
    public var rule: String { "schedule=\(schedule)" + (firstIn ? " first_in" : "") }

    /// From ``rule``; nil for text that is not one.
    public init?(rule: String) {
        var schedule: String?
        var firstIn = false
        for word in rule.split(separator: " ") {
            if word.hasPrefix("schedule=") {
                schedule = String(word.dropFirst("schedule=".count))
            } else if word == "first_in" {
                firstIn = true
            } else {
                return nil
            }
        }
        guard let schedule, !schedule.isEmpty else { return nil }
        self.init(schedule: schedule, firstIn: firstIn)
    }
}

/// A door's unlock schedule made ready to decide at the door: the schedule compiled, the
/// site's zone and holidays, and the staff who may start a first-in day. On a holiday the
/// holiday's own schedule decides (none: the door stays locked), as for users.
public struct DoorUnlockPlan: Sendable {
    public let schedule: WeeklySchedule
    public let zone: TimeZone
    public let holidays: HolidayCalendar
    public let firstIn: Bool
    public let staff: Set<String>

    public init(schedule: WeeklySchedule, zone: TimeZone, holidays: HolidayCalendar = .none, firstIn: Bool, staff: Set<String>) {
        self.schedule = schedule
        self.zone = zone
        self.holidays = holidays
        self.firstIn = firstIn
        self.staff = staff
    }

    /// Whether `instant` is in one of the windows that hold the door unlocked.
    public func isOpen(at instant: Date) -> Bool {
        let now = SiteTime(instant, in: zone)
        if let holiday = holidays.inForce(at: now) { return holiday.replacement?.contains(minuteOfWeek: now.minuteOfWeek) == true }
        return schedule.contains(minuteOfWeek: now.minuteOfWeek)
    }

    /// The site's local day of `instant` (days since 1970-01-01, local), for "today".
    public func day(of instant: Date) -> Int64 {
        SiteTime.floorDivide(SiteTime(instant, in: zone).localSeconds, 86_400)
    }
}
