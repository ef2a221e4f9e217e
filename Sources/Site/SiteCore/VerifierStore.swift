import Foundation
import KioskPadAccess
import KioskPadCore

/// Where the reference verifier keeps the state its decisions read and change: users, the
/// replay cache, per-terminal lockout, TOTP steps used, one-time codes and the audit trail.
/// One SQLite file (one instance) or one PostgreSQL database (several instances) hold it.
///
/// An attempt is decided in two parts. The slow part, the PIN hashes, reads only
/// (``users(lookupTag:keyID:)``, ``totpUsers()``, ``liveCodes(now:lookupTag:)``) and holds no lock.
/// Then ``commitAttempt(terminal:policy:_:)`` makes what the attempt changes (its request's
/// id in the replay cache, lockout, code use, TOTP step) and its audit record one
/// transaction, committed before the answer is sent. Any error a store throws makes the attempt `unavailable` (503), never a grant.
public protocol VerifierStore: Sendable {
    /// The enabled user lines an attempt is checked against. With `lookupTag` (a lookup key
    /// is in use) a store may leave out lines tagged with another tag of the same key; nil:
    /// every line.
    func users(lookupTag: String?, keyID: String?) async throws -> UsersFile
    /// The enabled lines of user `name` (a card's holder, whose own PIN a card-and-PIN door checks).
    func lines(of name: String) async throws -> UsersFile
    /// `door`'s card-and-PIN rule, with what deciding it at `instant` needs; nil: the door
    /// asks for one factor.
    func cardAndPIN(door: String, at instant: Date) async throws -> CardAndPINAccess?
    /// The replica tag key, nil before any replica tag was made (a PIN chosen at a door is
    /// tagged with it, so doors find it offline with one HMAC).
    func replicaTagKey() async throws -> ReplicaTagKey?
    /// The enabled users that have a TOTP secret.
    func totpUsers() async throws -> [UserRecord]
    /// The one-time codes not used and not expired at `now`. With `lookupTag` (the typed
    /// code's ``LookupKey/codeTag(_:)``) only those that can match it: that tag's, and those
    /// with no tag of its key (issued before the key, or under another); nil: every one.
    func liveCodes(now: Date, lookupTag: String?) async throws -> [IssuedCode]
    /// The enrolment codes (a PIN chosen at the door) not used and not expired at `now`,
    /// narrowed by `lookupTag` as ``liveCodes(now:lookupTag:)`` are.
    func liveEnrolmentCodes(now: Date, lookupTag: String?) async throws -> [IssuedCode]
    /// The visitor passes not revoked, with a use left, whose window ended less than a day
    /// before `now` (a pass just past its end is still matched, to be refused as `expired`),
    /// narrowed by `lookupTag` as ``liveCodes(now:lookupTag:)`` are.
    func liveVisitorPasses(now: Date, lookupTag: String?) async throws -> [IssuedVisitorPass]
    /// The key door `terminal` signs with: the site secret, its own (`verifier terminal add`,
    /// or given when it was adopted) with the next one while a rotation waits, or retired.
    func doorKey(terminal: String) async throws -> DoorKey
    /// Door `terminal` signed with `next`, its rotation's next secret, at `now`: that secret
    /// replaces the current one, kept as ``DoorKey/Replaced`` for requests signed before
    /// `now`. False when no such rotation waited (another instance finished it first).
    func finishRotation(terminal: String, next: WebhookSecret, now: Date) async throws -> Bool
    /// The doors retired at this site (``VerifierAdministration/retireDoor(terminalID:now:)``).
    func retiredDoors() async throws -> Set<String>
    /// `terminal`'s lockout state as it is now (read without holding it).
    func lockout(terminal: String, policy: LockoutPolicy) async throws -> LockoutTracker
    /// Runs `body` with `terminal`'s lockout state in one write transaction, exclusive for
    /// that terminal across every instance that shares the store, and keeps the state it
    /// leaves together with everything `body` did through the ``AttemptTransaction``. If
    /// `body` throws, nothing it did is kept.
    func commitAttempt<R: Sendable>(
        terminal: String, policy: LockoutPolicy, _ body: @escaping @Sendable (inout LockoutTracker, any AttemptTransaction) async throws -> R
    ) async throws -> R
    /// Stores forwarded journal records in one transaction, each once (an id seen before is
    /// skipped); returns how many were new.
    func storeEvents(_ events: [DoorEvent]) async throws -> Int
    /// Every terminal that forwarded records, with its newest records (up to `limit`,
    /// newest first), sorted by terminal.
    func recentEvents(perTerminal limit: Int) async throws -> [(terminal: String, newestFirst: [DoorEvent])]
    /// Deletes the forwarded records older than `cutoff`, and those dated after `future`
    /// (stored before the server refused such times); returns how many. Webhook deliveries
    /// finished before `cutoff` go with them.
    func pruneEvents(before cutoff: Date, after future: Date) async throws -> Int
    /// Records a signed request's `webhook-id` outside an attempt (a `/v1/credentials`
    /// request); false when it was already seen within the replay window.
    func claimRequestID(_ id: String, now: Date) async throws -> Bool
    /// The answer kept with request id `id` by ``AttemptTransaction/keepAnswer(requestID:_:)``,
    /// while its replay window lasts at `now`; nil when none was kept.
    func keptAnswer(requestID id: String, now: Date) async throws -> KeptAnswer?
    /// Appends one audit record on its own (a refused request, an error; never a PIN or code),
    /// or inside the change ``commitChange(_:)`` is running.
    func audit(_ fields: [(String, String)]) async throws
    /// Runs `body` as one write transaction: every read and write it makes through this
    /// store's database (any store on it) joins it, and it commits when `body` returns and
    /// rolls back when it throws (an administrator's change with its audit record, webhook
    /// messages and change-log entries).
    func commitChange<R: Sendable>(_ body: @escaping @Sendable () async throws -> R) async throws -> R
    /// Appends `entries` to the site's change log, each at the next site-wide position.
    func logChanges(_ entries: [ChangeLogEntry]) async throws
    /// The change log after position `after`, oldest first, at most `limit` entries.
    func changeLog(after: Int64, limit: Int) async throws -> [LoggedChange]
    /// Nil when the store can be used now, else why not (for `/healthz`).
    func healthProblem() async -> String?
}

/// What one attempt changes, inside its ``VerifierStore/commitAttempt(terminal:policy:_:)``
/// transaction.
public protocol AttemptTransaction: Sendable {
    /// Records a signed request's `webhook-id` seen at `now`; false when it was already seen
    /// within the replay window (a replay).
    func claimRequestID(_ id: String, now: Date) async throws -> Bool
    /// Keeps `answer` with request id `id` (claimed in this transaction), so a retry of the
    /// same request is answered the same.
    func keepAnswer(requestID id: String, _ answer: KeptAnswer) async throws
    /// Records that `user` used TOTP step `step`; false when that step or a later one was used.
    func claimTOTPStep(user: String, step: Int) async throws -> Bool
    /// Uses up one-time code `id` at `now`; false when it was used (or expired) meanwhile.
    func useCode(id: Int64, now: Date) async throws -> Bool
    /// Counts one use of visitor pass `id` at `door` at `now`, by an `UPDATE` only a pass
    /// with a use left, not revoked, can meet (across instances, each use once); false when
    /// none was left.
    func useVisitorPass(id: Int64, door: String, now: Date) async throws -> Bool
    /// The user `door` is armed to learn a card for at `now`; nil when it is not armed.
    func cardLearner(door: String, now: Date) async throws -> String?
    /// Ends `door`'s arming with `result` (``CardLearning/learned`` or why not).
    func finishCardLearning(door: String, result: String, now: Date) async throws
    /// Adds the card `card` (an unknown card just read) to `user`'s lines; false when there is no such user.
    func addCard(user: String, _ card: UnknownCardHash) async throws -> Bool
    /// Keeps unknown card `card` read at `door` for an administrator to claim (the newest
    /// ``CardLearning/unknownKept`` per door, for a day).
    func noteUnknownCard(door: String, _ card: UnknownCardHash, now: Date) async throws
    /// Pass `pass`'s rule as a user's is decided: its schedule, the site's zone, the mode
    /// `door` follows, the holidays and (for levels) the tree; and whether its host is a user
    /// who is not disabled.
    func access(pass: IssuedVisitorPass, door: String, at instant: Date) async throws -> (access: UserAccess, hostActive: Bool)
    /// `name`'s access rule with its schedule, the site's zone, the mode `door` follows and
    /// the holidays around `instant`; nil when there is no such user.
    func access(user name: String, door: String, at instant: Date) async throws -> UserAccess?
    /// Appends the attempt's audit record (never a PIN or code).
    func audit(_ fields: [(String, String)]) async throws
    /// Makes `hash` (with its lookup tag and replica tag) `user`'s PIN: their PIN line's hash
    /// replaced (the TOTP secret stays), or a PIN line added for a user with cards only; false
    /// for no such user.
    func setPIN(user: String, hash: PINHash, tag: String?, replicaTag: String?) async throws -> Bool
}

/// A one-time code as the store keeps it: its hash, never the code.
public struct IssuedCode: Sendable, Equatable {
    public let id: Int64
    public let user: String
    public let hash: PINHash
    /// The only door it opens (`code issue --door`); nil: any door its user may open.
    public let door: String?

    public init(id: Int64, user: String, hash: PINHash, door: String? = nil) {
        self.id = id
        self.user = user
        self.hash = hash
        self.door = door
    }
}

/// An audit record as every store keeps it: one JSON object of string fields, keys sorted.
public enum AuditRecordJSON {
    public static func encode(_ fields: [(String, String)]) throws -> String {
        var object: [String: String] = [:]
        for (key, value) in fields { object[key] = value }
        return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }
}
