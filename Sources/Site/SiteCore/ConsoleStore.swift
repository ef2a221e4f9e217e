import Foundation
import KioskPadAccess
import KioskPadCore

/// What the site console keeps in the verifier's database, so every instance that shares
/// it sees the same administrators, sessions and acknowledged alerts: administrators
/// (password hashes, failed logins, lockout), sessions (the hash of each token, never the
/// token), alert acknowledgements, and the "who entered" history read from the audit and
/// the doors' events.
public protocol ConsoleStore: Sendable {
    /// Adds administrator `name` with `role`, limited to `doorGroups` (nil: every door); false
    /// when there is one of that name already.
    func addAdmin(name: String, hash: PINHash, role: SiteRole, doorGroups: [String]?) async throws -> Bool
    /// Gives administrator `name` `role` and `doorGroups`; their sessions take them at their
    /// next request. False when there is no such administrator.
    func setAdminRole(name: String, role: SiteRole, doorGroups: [String]?) async throws -> Bool
    /// Makes administrator `name` an account of the identity provider `provider` (no password
    /// can sign it in: `unusable` is a hash of nothing known) with `role` and `doorGroups`, or
    /// gives the provider's account of that name them again. False, changing nothing, when
    /// `name` is a local account (or another provider's): a sign-in never takes one over.
    func signInFromProvider(name: String, provider: String, role: SiteRole, doorGroups: [String]?, unusable: PINHash) async throws -> Bool
    /// Every administrator's name, role, door groups and identity provider (nil: a local account), sorted by name.
    func adminRoles() async throws -> [(name: String, role: SiteRole, doorGroups: [String]?, provider: String?)]
    /// Removes administrator `name` and ends their sessions; false when there was none.
    func removeAdmin(name: String) async throws -> Bool
    /// Every administrator's name, sorted.
    func adminNames() async throws -> [String]
    /// Gives administrator `name` a TOTP secret (nil: none), so logins need its code; false
    /// when there is no such administrator.
    func setAdminTOTP(name: String, secret: [UInt8]?) async throws -> Bool
    /// Records that `name` logged in with TOTP step `step`; false when that step or a later
    /// one was used (a code seen once is not accepted again).
    func claimAdminTOTPStep(name: String, step: Int) async throws -> Bool
    /// Administrator `name` as a login checks it; nil when there is none.
    func admin(name: String) async throws -> AdminAccount?
    /// Counts a failed login for `name` at `now` in one transaction; after `limit` failures
    /// in a row the account is locked until `now + lockFor`.
    func noteFailedLogin(name: String, now: Date, limit: Int, lockFor: TimeInterval) async throws
    /// Clears `name`'s failed logins (a login succeeded).
    func clearFailedLogins(name: String) async throws
    /// Stores a new session, idle-expiring at `created + idle` (and deletes ended ones).
    func createSession(_ session: ConsoleSession, idle: TimeInterval) async throws
    /// The session whose token hashes to `tokenHash`, if it has not expired at `now`; a
    /// found session's idle deadline moves to `now + idle`.
    func session(tokenHash: String, now: Date, idle: TimeInterval) async throws -> ConsoleSession?
    /// Ends a session (log out).
    func endSession(tokenHash: String) async throws
    /// Records that `admin` acknowledged `alert` at door `terminal` at `at`.
    func acknowledge(terminal: String, alert: String, admin: String, at: Date) async throws
    /// Every acknowledgement: the newest per door and alert.
    func acknowledgements() async throws -> [AlertAcknowledgement]
    /// The one-time codes not used and not expired at `now`, newest first (never a hash).
    func unusedCodes(now: Date) async throws -> [UnusedCode]
    /// Revokes unused code `id` (marks it used at `now`); false when it was used, expired or unknown.
    func revokeCode(id: Int64, now: Date) async throws -> Bool
    /// One page of "who entered", newest first: decisions from the audit and door events,
    /// filtered; `offset` rows skipped, up to `limit` rows.
    func entries(_ filter: EntryFilter, offset: Int, limit: Int) async throws -> [EntryRow]
}

/// A site administrator as a login checks them.
public struct AdminAccount: Sendable, Equatable {
    public let name: String
    public let hash: PINHash
    public let failedLogins: Int
    public let lockedUntil: Date?
    /// Their TOTP secret (`verifier admin totp`): a login then needs the app's code too.
    public let totpSecret: [UInt8]?
    /// What they may do on the site.
    public let role: SiteRole
    /// The door groups they are limited to (nil: every door).
    public let doorGroups: [String]?
    /// The identity provider whose account this is (its issuer), or nil for a local account
    /// with a password. A password never signs a provider's account in.
    public let provider: String?

    public init(
        name: String, hash: PINHash, failedLogins: Int, lockedUntil: Date?, totpSecret: [UInt8]? = nil, role: SiteRole, doorGroups: [String]? = nil,
        provider: String? = nil
    ) {
        self.provider = provider
        self.name = name
        self.role = role
        self.doorGroups = doorGroups
        self.hash = hash
        self.failedLogins = failedLogins
        self.lockedUntil = lockedUntil
        self.totpSecret = totpSecret
    }
}

/// A logged-in administrator's session: the SHA-256 of its cookie token (the token itself
/// is never stored), the form token every change must carry, and its deadlines.
public struct ConsoleSession: Sendable, Equatable {
    public let tokenHash: String
    public let admin: String
    public let csrfToken: String
    public let created: Date
    /// The absolute end, whatever the activity.
    public let expires: Date
    /// The administrator's role as it is now (read with the session at every request, so a
    /// changed role holds from the next one).
    public let role: SiteRole
    /// The door groups they are limited to, as now (nil: every door).
    public let doorGroups: [String]?
    /// The identity provider the administrator signed in through (nil: a local password).
    public let provider: String?

    public init(
        tokenHash: String, admin: String, csrfToken: String, created: Date, expires: Date, role: SiteRole, doorGroups: [String]? = nil,
        provider: String? = nil
    ) {
        self.provider = provider
        self.role = role
        self.doorGroups = doorGroups
        self.tokenHash = tokenHash
        self.admin = admin
        self.csrfToken = csrfToken
        self.created = created
        self.expires = expires
    }
}

/// An unused one-time code as the console lists it: whose, for which door, until when.
public struct UnusedCode: Sendable, Equatable {
    public let id: Int64
    public let user: String
    public let door: String?
    public let expires: Date
    /// An enrolment code (a PIN chosen at a door), not one that opens a door.
    public var enrolment = false

    public init(id: Int64, user: String, door: String?, expires: Date) {
        self.id = id
        self.user = user
        self.door = door
        self.expires = expires
    }
}

/// An administrator's acknowledgement of one alert at one door.
public struct AlertAcknowledgement: Sendable, Equatable {
    public let terminal: String
    public let alert: String
    public let admin: String
    public let at: Date

    public init(terminal: String, alert: String, admin: String, at: Date) {
        self.terminal = terminal
        self.alert = alert
        self.admin = admin
        self.at = at
    }
}

/// Which "who entered" rows to show; nil fields do not filter.
public struct EntryFilter: Sendable, Equatable {
    public var door: String?
    public var user: String?
    /// `granted`, `denied` or `event` (a door event: opened, held open, forced, tamper...).
    public var decision: String?
    public var from: Date?
    public var until: Date?
    /// Only these doors (an operator limited to door groups); nil: every door.
    public var within: [String]?

    public static let decisions = Decision.answered.map(\.rawValue) + ["event"]

    public init(door: String? = nil, user: String? = nil, decision: String? = nil, from: Date? = nil, until: Date? = nil) {
        self.door = door
        self.user = user
        self.decision = decision
        self.from = from
        self.until = until
    }
}

/// One row of "who entered": a decision from the audit or an event a door forwarded.
public struct EntryRow: Sendable, Equatable {
    public let time: Date
    public let door: String
    public let user: String?
    /// `granted`, `denied`, or for a door event `event`.
    public let decision: String
    /// Why (`match`, `outside_schedule`, ...), or the event's type (`held_open`, ...).
    public let detail: String

    public init(time: Date, door: String, user: String?, decision: String, detail: String) {
        self.time = time
        self.door = door
        self.user = user
        self.decision = decision
        self.detail = detail
    }

    /// The door event types "who entered" shows (heartbeats and the rest are left out).
    public static let eventTypes = [DoorRecordType.doorOpened, .doorClosed, .heldOpen, .forcedOpen, .tamper, .duress, .exitRequest].map(\.rawValue)
}
