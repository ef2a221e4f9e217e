import Foundation
import KioskPadAccess
import KioskPadCore

/// What the `kioskpad verifier` commands change and read in the verifier's database beside
/// users: one-time codes, lockouts, and users brought in from (or written out to) a users
/// file. Each change is one transaction, so a running server sees it at its next attempt.
public protocol VerifierAdministration: UserDirectory, SiteRulesEditing, VisitorPassAdministration, CardLearningAdministration, DoorPairingStore,
    DoorSettingsStore, DoorCommandStore
{
    /// Stores a new one-time code's hash and lookup tag for `user` (an existing user), valid
    /// until `expires`, at `door` only (nil: any door the user may open); ``CodeTagInUse``
    /// when a live code or pass has `lookupTag` (``CodeIssuing`` draws again).
    func issueCode(user: String, hash: PINHash, lookupTag: String?, expires: Date, door: String?) async throws
    /// Stores a new enrolment code's hash and lookup tag for `user` (an existing user), valid
    /// until `expires`: typed at a door with `entry.enrolment`, it lets the user choose their
    /// PIN; ``CodeTagInUse`` as for ``issueCode(user:hash:lookupTag:expires:door:)``.
    func issueEnrolmentCode(user: String, hash: PINHash, lookupTag: String?, expires: Date) async throws
    /// Every terminal with lockout state, sorted by terminal.
    func lockouts(policy: LockoutPolicy) async throws -> [TerminalLockout]
    /// Forgets `terminal`'s lockout and denials; false when it had none.
    func clearLockout(terminal: String) async throws -> Bool
    /// Every user line (PIN, duress PIN, card), in the order they were added.
    func records() async throws -> [UserRecord]
    /// The newest `count` audit records (JSON objects of strings), oldest first.
    func auditRecords(last count: Int) async throws -> [String]
    /// Gives door `terminalID` its own signing secret; refused when it has one.
    func addDoor(terminalID: String, secret: WebhookSecret) async throws
    /// The doors with their own secret, sorted.
    func doors() async throws -> [DoorIdentity]
    /// Revokes door `terminalID`'s own secret; false when it had none; refused for a retired door.
    func removeDoor(terminalID: String) async throws -> Bool
    /// Starts rotating adopted door `terminalID`'s secret: `next` is accepted beside the
    /// current one until the door signs with it (``VerifierStore/finishRotation(terminal:next:)``).
    /// Refused for a door given its secret by hand, a retired one, or one with a rotation waiting.
    func startRotation(terminalID: String, next: WebhookSecret, deadline: Date) async throws
    /// Retires door `terminalID` at `now`: every request naming it is refused from then on,
    /// its acknowledged alerts are forgotten and it is no longer watched for silence.
    func retireDoor(terminalID: String, now: Date) async throws
    /// Up to `limit` users after `after` in byte order of their names, only those whose name
    /// holds `search` (any case), each with their access rule: one indexed read per page.
    func usersPage(after: String?, search: String?, limit: Int) async throws -> [UserListing]
    /// User `name` with their rule, or nil when the site has no such user (one indexed read).
    func userListing(name: String) async throws -> UserListing?
    /// Renames user `name` to `newName`: their PIN, duress PIN, cards, TOTP secret, rule and
    /// unused codes go with them; the audit log keeps the old name in past records. Refused
    /// when there is no such user or `newName` is taken.
    func rename(name: String, to newName: String) async throws
}

/// A user as a list shows them: their credentials by kind and their access rule.
public struct UserListing: Sendable, Equatable {
    public let user: UserSummary
    public let rule: AccessRule

    public init(user: UserSummary, rule: AccessRule) {
        self.user = user
        self.rule = rule
    }
}

extension VerifierAdministration {
    /// In one transaction: reads every user line, asks `plan` which lines to add (it throws
    /// to add nothing), adds them; returns how many.
    public func importRecords(_ plan: @escaping @Sendable ([UserRecord]) throws -> [UserRecord]) async throws -> Int {
        try await editSite { transaction in
            let adding = try plan(try await transaction.records())
            for record in adding { try await transaction.insert(record) }
            return adding.count
        }
    }

    /// `verifier import`: a users file's lines and rules, in one transaction (see
    /// ``UsersImport``); returns how many lines were added.
    public func importUsers(_ file: UsersFile) async throws -> Int {
        try await editSite { transaction in
            let plan = try UsersImport.plan(file, existing: try await transaction.records(), site: try await transaction.readSite())
            for record in plan.records { try await transaction.insert(record) }
            if let zone = plan.timeZone { try await transaction.writeTimeZone(zone) }
            for (name, spec) in plan.schedules { try await transaction.writeSchedule(name: name, spec: spec) }
            for (user, rule) in plan.rules { try await transaction.writeRule(user: user, rule: rule) }
            for holiday in plan.holidays { try await transaction.writeHoliday(day: holiday.day, holiday: holiday) }
            for (door, rule) in plan.cardAndPIN { try await transaction.writeCardAndPIN(door: door, rule: rule) }
            for (kind, name, definition) in plan.accessGroups { try await transaction.writeAccessGroup(kind: kind, name: name, definition: definition) }
            return plan.records.count
        }
    }

    /// `user add NAME` with its rule, in one transaction: refused when the user has a PIN
    /// already or the rule names a schedule that does not exist.
    public func addUser(name: String, hash: PINHash, tag: String?, rule: AccessRule) async throws {
        let location = self.location
        try await editSite { transaction in
            if rule.schedule != nil || rule.usesLevels { try AccessGroupsEditing.check(rule, in: try await transaction.readSite(), location: location) }
            guard try await transaction.addPIN(name: name, hash: hash, tag: tag) else { throw UserEditError.alreadyThere(name, in: location) }
            try await transaction.writeRule(user: name, rule: rule)
        }
    }
}

/// One terminal's lockout state, for `kioskpad verifier lockout list`.
public struct TerminalLockout: Sendable, Equatable {
    public let terminal: String
    public let tracker: LockoutTracker

    public init(terminal: String, tracker: LockoutTracker) {
        self.terminal = terminal
        self.tracker = tracker
    }
}
