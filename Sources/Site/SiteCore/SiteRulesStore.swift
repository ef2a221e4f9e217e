import Foundation
import KioskPadAccess
import KioskPadCore
import Synchronization

/// The primitive reads and writes of a site's access rules inside one transaction; each
/// store implements them, and ``SiteRulesEditing`` builds every command on them once.
public protocol SiteRulesTransaction: Sendable {
    /// The site's zone, every schedule and every user's rule.
    func readSite() async throws -> SiteRules
    /// Whether `name` has any line (PIN, duress PIN, card).
    func userExists(_ name: String) async throws -> Bool
    func writeTimeZone(_ id: String) async throws
    /// Stores `spec` under `name`, or deletes the schedule for nil.
    func writeSchedule(name: String, spec: String?) async throws
    /// Stores `user`'s rule; a default rule deletes it.
    func writeRule(user: String, rule: AccessRule) async throws
    /// Every user line, in the order they were added.
    func records() async throws -> [UserRecord]
    /// Adds one user line.
    func insert(_ record: UserRecord) async throws
    /// Adds `name`'s PIN line; false when the user has a PIN already.
    func addPIN(name: String, hash: PINHash, tag: String?) async throws -> Bool
    /// Stores the holiday on `day`, or deletes it for nil.
    func writeHoliday(day: SiteDate, holiday: Holiday?) async throws
    /// Stores the mode of `scope` (``DoorModes/siteScope`` or a `terminal_id`), or clears it for nil.
    func writeMode(scope: String, setting: DoorModes.Setting?) async throws
    /// Stores how long a door may decide offline without a sync (nil: no such bound).
    func writeModeCheck(seconds: Int?) async throws
    /// Stores `door`'s unlock schedule, or removes it for nil.
    func writeUnlock(door: String, unlock: DoorUnlockSchedule?) async throws
    /// Stores `door`'s card-and-PIN rule, or removes it for nil.
    func writeCardAndPIN(door: String, rule: CardAndPINRule?) async throws
    /// Stores a door group, access level or user group (its ``AccessLevel/fields`` and
    /// the like), or removes it for nil.
    func writeAccessGroup(kind: AccessGroupKind, name: String, definition: [String]?) async throws
}

/// Where the rules are changed: a store that runs a body as one write transaction.
public protocol SiteRulesEditing: Sendable {
    /// Where the rules are, for messages.
    var location: String { get }
    func editSite<R: Sendable>(_ body: @escaping @Sendable (any SiteRulesTransaction) async throws -> R) async throws -> R
}

/// A door's own signing secret as `verifier terminal list` shows it (never the secret).
public struct DoorIdentity: Sendable, Equatable {
    /// How the door came by its secret, and where that secret stands.
    public enum Standing: String, Sendable {
        /// Given by hand (`verifier terminal add`).
        case handGiven = "hand-given"
        /// Sealed to it when it was adopted; it picks up a rotation by itself.
        case adopted
        /// Adopted, with a next secret waiting for the door's next check-in.
        case rotating
        /// Retired: refused whatever it signs with.
        case retired
    }

    public let terminalID: String
    public let createdAt: String
    public let standing: Standing

    public init(terminalID: String, createdAt: String, standing: Standing = .handGiven) {
        self.terminalID = terminalID
        self.createdAt = createdAt
        self.standing = standing
    }
}

extension SiteRulesEditing {
    public func siteRules() async throws -> SiteRules {
        try await editSite { try await $0.readSite() }
    }

    /// Sets the site's zone (checked as an IANA id).
    public func setTimeZone(_ id: String) async throws {
        do {
            _ = try SiteRules.zone(id)
        } catch let error as AccessRule.RuleError {
            throw UserEditError(description: "--time-zone: \(error.description)")
        }
        try await editSite { try await $0.writeTimeZone(id) }
    }

    /// Adds or replaces a schedule; a bad spec is refused naming its part.
    public func setSchedule(name: String, spec: String) async throws {
        guard Identifier.isValid(name), name != "always" else {
            throw UserEditError(description: "schedule name '\(name)' must be 1-64 of letters, digits, '.', '_' or '-' (and not always)")
        }
        do {
            _ = try WeeklySchedule(parsing: spec)
        } catch let error as WeeklySchedule.SpecError {
            throw UserEditError(description: "schedule '\(name)': \(error.description)")
        }
        let trimmed = spec.trimmingCharacters(in: .whitespaces)
        try await editSite { try await $0.writeSchedule(name: name, spec: trimmed) }
    }

    /// Removes a schedule no user has; one in use is refused, naming its users.
    public func removeSchedule(name: String) async throws {
        let location = self.location
        try await editSite { transaction in
            let site = try await transaction.readSite()
            guard site.schedules[name] != nil else { throw UserEditError(description: "no schedule '\(name)' in \(location)") }
            let users = site.rules.filter { $0.value.schedule == name }.keys.sorted()
            let levels = site.access.schedulesUsed[name] ?? []
            guard levels.isEmpty else {
                throw UserEditError(
                    description:
                        "schedule '\(name)' is the schedule of the access level \(levels.joined(separator: ", ")); change or remove it there first (`kioskpad verifier level set`)"
                )
            }
            let holidays = site.holidays.filter { $0.schedule == name }.map(\.day.description)
            let doors = site.unlockSchedules.filter { $0.value.schedule == name }.keys.sorted()
            let twoFactorDoors = site.cardAndPIN.filter { $0.value.schedule == name }.keys.sorted()
            guard twoFactorDoors.isEmpty else {
                throw UserEditError(
                    description:
                        "schedule '\(name)' is the card-and-PIN schedule of \(twoFactorDoors.joined(separator: ", ")); change or remove it there first (`kioskpad verifier card-pin`)"
                )
            }
            guard doors.isEmpty else {
                throw UserEditError(
                    description:
                        "schedule '\(name)' is the unlock schedule of \(doors.joined(separator: ", ")); remove it there first (`kioskpad verifier unlock remove DOOR`)"
                )
            }
            guard holidays.isEmpty else {
                throw UserEditError(
                    description:
                        "schedule '\(name)' is the schedule of the holiday \(holidays.joined(separator: ", ")); change or remove the holiday first (`kioskpad verifier holiday`)"
                )
            }
            guard users.isEmpty else {
                throw UserEditError(
                    description:
                        "schedule '\(name)' is used by \(users.joined(separator: ", ")); give them another first (`kioskpad verifier user set NAME --schedule always`)"
                )
            }
            try await transaction.writeSchedule(name: name, spec: nil)
        }
    }

    /// Changes `user`'s rule with `change`, in one transaction, and returns the rule now;
    /// refused for an unknown user or a schedule that does not exist.
    @discardableResult
    public func setAccess(user: String, _ change: @escaping @Sendable (inout AccessRule) -> Void) async throws -> AccessRule {
        let location = self.location
        return try await editSite { transaction in
            guard try await transaction.userExists(user) else { throw UserEditError(description: "no user '\(user)' in \(location)") }
            let site = try await transaction.readSite()
            let before = site.rules[user] ?? AccessRule()
            var rule = before
            change(&rule)
            // The last level or group taken away leaves no grant, never the default's every door.
            if before.usesLevels && !rule.usesLevels && rule.doors == nil { rule.doors = [] }
            try AccessGroupsEditing.check(rule, in: site, location: location)
            try await transaction.writeRule(user: user, rule: rule)
            return rule
        }
    }
}

/// A user's rule as a store keeps it (the text the users file writes after `@access NAME`),
/// with the schedule's spec, the site's zone, the door's mode and the holidays near the
/// attempt: what one decision reads.
public struct UserAccess: Sendable, Equatable {
    /// One holiday as stored: its date, its ``Holiday/rule`` and its schedule's spec.
    public struct HolidayRow: Sendable, Equatable {
        public let day: String
        public let rule: String
        public let scheduleSpec: String?

        public init(day: String, rule: String, scheduleSpec: String?) {
            self.day = day
            self.rule = rule
            self.scheduleSpec = scheduleSpec
        }
    }

    /// Nil: the default rule (every door, always).
    public let ruleText: String?
    public let scheduleSpec: String?
    public let timeZone: String
    /// The mode the door follows now.
    public let mode: DoorMode
    /// The holidays on the dates around the attempt (read only for a user with a schedule).
    public let holidays: [HolidayRow]
    /// For a rule with levels or groups: the site's tree and every schedule's spec by name,
    /// and the replica version they were read at (it moves with every change of the tree).
    public let levels: AccessLevels?
    public let scheduleSpecs: [String: String]
    public let treeVersion: Int64?

    public init(
        ruleText: String?, scheduleSpec: String?, timeZone: String, mode: DoorMode = .normal, holidays: [HolidayRow] = [], levels: AccessLevels? = nil,
        scheduleSpecs: [String: String] = [:], treeVersion: Int64? = nil
    ) {
        self.treeVersion = treeVersion
        self.ruleText = ruleText
        self.scheduleSpec = scheduleSpec
        self.timeZone = timeZone
        self.mode = mode
        self.holidays = holidays
        self.levels = levels
        self.scheduleSpecs = scheduleSpecs
    }
}

/// A door's card-and-PIN rule as a store keeps it (``CardAndPINRule/rule``), with its
/// schedule's spec, the site's zone and the holidays near the attempt.
public struct CardAndPINAccess: Sendable, Equatable {
    public let ruleText: String
    public let scheduleSpec: String?
    public let timeZone: String
    public let holidays: [UserAccess.HolidayRow]

    public init(ruleText: String, scheduleSpec: String?, timeZone: String, holidays: [UserAccess.HolidayRow] = []) {
        self.ruleText = ruleText
        self.scheduleSpec = scheduleSpec
        self.timeZone = timeZone
        self.holidays = holidays
    }
}

/// Rules, schedules and zones as the server decides with them: each text parsed or
/// compiled once and kept (a text is its own identity, so every instance reads the same,
/// and a changed rule is a new text). Bounded; past the bound a text is parsed each time.
public final class AccessCompilationCache: Sendable {
    private struct Compiled {
        var rules: [String: AccessRule?] = [:]
        var schedules: [String: WeeklySchedule?] = [:]
        var zones: [String: TimeZone?] = [:]
    }

    private let state = Mutex(Compiled())
    private let tree = Mutex<(version: Int64, compiled: CompiledAccessLevels)?>(nil)

    public init() {}

    /// Why the user may not open `door` at `instant`. A stored rule that cannot be read
    /// refuses (`disabled`: fail secure); while the host does not know the site's zone, a
    /// rule that needs the clock refuses (`clock_not_trusted`).
    public func refusal(_ access: UserAccess, door: String, at instant: Date) -> DenialReason? {
        let lockdown = access.mode == .lockdown
        guard let text = access.ruleText else { return lockdown ? .lockdown : nil }
        guard let rule = cached(\.rules, text, limit: 65_536, { try? AccessRule(text: $0) }) else { return .disabled }
        let zone = cached(\.zones, access.timeZone, limit: 64) { TimeZone(identifier: $0) }
        if rule.usesLevels {
            let atDoor = compiledTree(access).access(of: rule, at: door)
            let schedules = atDoor.schedules?.compactMap { access.scheduleSpecs[$0].flatMap(compiledSchedule) } ?? []
            return AccessEvaluator.refusal(
                rule, access: atDoor, schedules: schedules, now: zone.map { SiteTime(instant, in: $0) }, holidays: calendar(access.holidays),
                lockdown: lockdown)
        }
        let schedule = access.scheduleSpec.flatMap(compiledSchedule)
        return AccessEvaluator.refusal(
            rule, schedule: schedule, door: door, now: zone.map { SiteTime(instant, in: $0) }, holidays: calendar(access.holidays),
            lockdown: lockdown)
    }

    /// The stored holidays as a calendar. A holiday that cannot be read still counts as one
    /// that day, without a schedule of its own (scheduled users are refused).
    private func calendar(_ rows: [UserAccess.HolidayRow]) -> HolidayCalendar {
        guard !rows.isEmpty else { return .none }
        return HolidayCalendar(
            rows.compactMap { row -> (Holiday, WeeklySchedule?)? in
                guard let day = SiteDate(parsing: row.day) else { return nil }
                let holiday = (try? Holiday(day: row.day, words: row.rule.split(separator: " "))) ?? (try? Holiday(day: day))
                return holiday.map { ($0, row.scheduleSpec.flatMap(compiledSchedule)) }
            })
    }

    /// Whether the door of `access` asks for a card and a PIN at `instant`. A stored rule that
    /// cannot be read, an unknown zone or schedule ask for both (the stricter rule).
    public func secondFactorRequired(_ access: CardAndPINAccess, at instant: Date) -> Bool {
        guard let rule = CardAndPINRule(rule: access.ruleText) else { return true }
        let zone = cached(\.zones, access.timeZone, limit: 64) { TimeZone(identifier: $0) }
        return AccessEvaluator.secondFactorRequired(
            rule, schedule: access.scheduleSpec.flatMap(compiledSchedule), now: zone.map { SiteTime(instant, in: $0) },
            holidays: calendar(access.holidays))
    }

    /// The tree of `access` compiled, kept for the version it was read at (one kept: the
    /// newest a server sees); a tree read without a version is compiled each time.
    private func compiledTree(_ access: UserAccess) -> CompiledAccessLevels {
        guard let version = access.treeVersion else { return CompiledAccessLevels(access.levels ?? AccessLevels()) }
        if let kept = tree.withLock({ $0 }), kept.version == version { return kept.compiled }
        let compiled = CompiledAccessLevels(access.levels ?? AccessLevels())
        tree.withLock { $0 = (version, compiled) }
        return compiled
    }

    private func compiledSchedule(_ spec: String) -> WeeklySchedule? {
        cached(\.schedules, spec, limit: 4096) { try? WeeklySchedule(parsing: $0) }
    }

    private func cached<Value: Sendable>(
        _ table: WritableKeyPath<Compiled, [String: Value?]>, _ text: String, limit: Int, _ make: (String) -> Value?
    ) -> Value? {
        if let known = state.withLock({ $0[keyPath: table][text] }) { return known }
        let value = make(text)
        state.withLock { if $0[keyPath: table].count < limit { $0[keyPath: table][text] = value } }
        return value
    }
}
