import Foundation
import KioskPadCore

/// The access rules of a whole site as one value: its time zone, its named schedules, its
/// holidays, each user's rule and the doors' modes (lockdown, release). The users file
/// carries all but the modes (`@time_zone`, `@schedule`, `@holiday`, `@access` lines) for a
/// terminal's local verifier; `verifier export` writes it from the database.
public struct SiteRules: Sendable, Equatable {
    /// An IANA zone id (`Europe/Berlin`); nil in a users file that names none (the host's zone).
    public var timeZone: String?
    /// Schedule specs by name.
    public var schedules: [String: String]
    /// Rules by user name; users not here have the default.
    public var rules: [String: AccessRule]
    /// The site's holidays, one per date, by date.
    public var holidays: [Holiday]
    /// Lockdown and release, site-wide and per door.
    public var modes: DoorModes
    /// Doors' unlock schedules (held unlocked in opening hours), by `terminal_id`.
    public var unlockSchedules: [String: DoorUnlockSchedule] = [:]
    /// Doors that ask for a card and then its holder's PIN, by `terminal_id`.
    public var cardAndPIN: [String: CardAndPINRule] = [:]
    /// Door groups, access levels and user groups that users' rules name.
    public var access = AccessLevels()
    /// Seconds a door deciding offline may go without a sync (that could have brought a
    /// lockdown) before it refuses to decide; nil: only `max_age_h` bounds it.
    public var modeCheck: Int?

    public init(
        timeZone: String? = nil, schedules: [String: String] = [:], rules: [String: AccessRule] = [:], holidays: [Holiday] = [],
        modes: DoorModes = DoorModes()
    ) {
        self.timeZone = timeZone
        self.schedules = schedules
        self.rules = rules.filter { !$0.value.isDefault }
        self.holidays = holidays.sorted { $0.day.start < $1.day.start }
        self.modes = modes
    }

    /// The rules beyond the base ones (doors, schedules, validity, disabled) that this site
    /// uses at any door; each door's replica names those it uses at that door.
    public var requires: [ReplicaRequirement] {
        ReplicaRequirement.needed(
            holidays: !holidays.isEmpty, lockdown: modes.isSet || modeCheck != nil || rules.values.contains(where: \.responder),
            unlockSchedule: !unlockSchedules.isEmpty, cardPIN: !cardAndPIN.isEmpty)
    }

    /// The doors named by any rule, access level or door group, sorted.
    public var doorsNamed: [String] {
        var named = Set<String>()
        for rule in rules.values { named.formUnion(rule.doors ?? []) }
        for level in access.levels.values { named.formUnion(level.doors) }
        for group in access.doorGroups.values { named.formUnion(group.doors) }
        return named.sorted()
    }

    /// Whether any rule needs the wall clock (a level with a schedule given to anyone counts).
    public var needsClock: Bool {
        rules.values.contains { $0.needsClock || ($0.usesLevels && access.levels.values.contains { $0.schedule != nil }) }
    }

    /// `id` as a time zone, or an error naming it and what is valid.
    public static func zone(_ id: String) throws -> TimeZone {
        guard !id.isEmpty, let zone = TimeZone(identifier: id) else {
            throw AccessRule.RuleError(description: "'\(id)' is not an IANA time zone (e.g. Europe/Berlin, America/New_York, UTC)")
        }
        return zone
    }
}

/// ``SiteRules`` made ready to decide: the zone resolved and every schedule compiled once.
public struct CompiledSiteRules: Sendable {
    /// The site's zone, or nil for the host's: looked up only when a rule needs local time
    /// (Foundation's host zone loads ICU's data, some MB a door without rules never needs).
    private let siteZone: TimeZone?
    /// The zone local times are in: the site's, else the host's.
    public var zone: TimeZone { siteZone ?? .current }
    public let schedules: [String: WeeklySchedule]
    public let rules: [String: AccessRule]
    public let holidays: HolidayCalendar
    public let modes: DoorModes
    public let cardAndPIN: [String: CardAndPINRule]
    public let access: AccessLevels
    /// ``access`` ready to decide.
    public let levels: CompiledAccessLevels
    /// Whether any rule needs the wall clock (a terminal checks its clock only then).
    public let needsClock: Bool

    /// Compiles `site`; an error names the schedule whose spec is bad.
    public init(_ site: SiteRules, hostZone: TimeZone? = nil) throws {
        siteZone = try site.timeZone.map(SiteRules.zone) ?? hostZone
        var schedules: [String: WeeklySchedule] = [:]
        for (name, spec) in site.schedules {
            do {
                schedules[name] = try WeeklySchedule(parsing: spec)
            } catch let error as WeeklySchedule.SpecError {
                throw AccessRule.RuleError(description: "schedule '\(name)': \(error.description)")
            }
        }
        self.schedules = schedules
        for holiday in site.holidays {
            if let name = holiday.schedule, schedules[name] == nil {
                throw AccessRule.RuleError(description: "holiday \(holiday.day): schedule '\(name)' is not defined")
            }
        }
        holidays = HolidayCalendar(site.holidays, schedules: schedules)
        for (name, level) in site.access.levels {
            if let schedule = level.schedule, schedules[schedule] == nil {
                throw AccessRule.RuleError(description: "access level \(name): schedule '\(schedule)' is not defined")
            }
        }
        rules = site.rules
        modes = site.modes
        cardAndPIN = site.cardAndPIN
        access = site.access
        levels = CompiledAccessLevels(site.access)
        needsClock = site.needsClock
    }

    /// `site` with what does not compile left out: an unknown zone is the host's, a bad
    /// schedule matches no minute (its users are refused).
    public init(unchecked site: SiteRules, hostZone: TimeZone? = nil) {
        siteZone = site.timeZone.flatMap { TimeZone(identifier: $0) } ?? hostZone
        schedules = site.schedules.compactMapValues { try? WeeklySchedule(parsing: $0) }
        holidays = HolidayCalendar(site.holidays, schedules: schedules)
        rules = site.rules
        modes = site.modes
        cardAndPIN = site.cardAndPIN
        access = site.access
        levels = CompiledAccessLevels(site.access)
        needsClock = site.needsClock
    }

    /// The schedule a rule's ``AccessRule/schedule`` names: one, or the union of several
    /// (an unknown name adds no minute: fail secure); nil when none is known.
    public func schedule(named names: [String]) -> WeeklySchedule? {
        names.count == 1 ? schedules[names[0]] : WeeklySchedule(union: names.compactMap { schedules[$0] })
    }

    /// Whether `door` asks for a card and its holder's PIN at `instant` (nil: the clock is
    /// not trusted, which with a scheduled rule asks for both).
    public func secondFactorRequired(door: String, at instant: Date?) -> Bool {
        guard let rule = cardAndPIN[door] else { return false }
        return AccessEvaluator.secondFactorRequired(
            rule, schedule: rule.schedule.flatMap { schedules[$0] }, now: instant.map { SiteTime($0, in: zone) }, holidays: holidays)
    }

    /// Why `user` may not open `door` at `instant` (nil: they may); `instant` nil when the
    /// clock is not trusted.
    public func refusal(user: String, door: String, at instant: Date?) -> DenialReason? {
        refusal(rules[user], door: door, at: instant)
    }

    /// Why `rule` (a user's, from ``rules``; nil: the default) does not let its user open
    /// `door` at `instant`. A rule with levels or groups is decided by what its grants give
    /// at the door (``CompiledAccessLevels``); both through the one evaluator.
    public func refusal(_ rule: AccessRule?, door: String, at instant: Date?) -> DenialReason? {
        let now = instant.map { SiteTime($0, in: zone) }
        let lockdown = modes.mode(at: door) == .lockdown
        if let rule, rule.usesLevels {
            let access = levels.access(of: rule, at: door)
            return AccessEvaluator.refusal(
                rule, access: access, schedules: access.schedules?.compactMap { schedules[$0] } ?? [], now: now, holidays: holidays, lockdown: lockdown)
        }
        return AccessEvaluator.refusal(
            rule, schedule: rule.flatMap { schedule(named: $0.scheduleNames) }, door: door, now: now, holidays: holidays, lockdown: lockdown)
    }

    /// Whether deciding `rule` at `door` needs the wall clock (a schedule that applies there, or a validity bound).
    public func needsClock(_ rule: AccessRule, at door: String) -> Bool {
        guard rule.usesLevels else { return rule.needsClock }
        return rule.validFrom != nil || rule.validUntil != nil || levels.access(of: rule, at: door).schedules != nil
    }
}
