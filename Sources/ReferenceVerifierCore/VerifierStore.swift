import Foundation
import KeypadCore
import KeypadVerifier

/// Where the reference verifier keeps the state its decisions read and change: users, the
/// replay cache, per-terminal lockout, TOTP steps used, one-time codes and the audit trail.
/// ``FileVerifierStore`` keeps them in files and memory (one instance); a PostgreSQL store
/// shares them between instances. Any error it throws makes the attempt `unavailable`
/// (503), never a grant.
public protocol VerifierStore: Sendable {
    /// Records a signed request's `webhook-id` seen at `now`; false when it was already seen
    /// within the replay window (a replay).
    func claimRequestID(_ id: String, now: Date) async throws -> Bool
    /// The user lines an attempt is checked against. With `lookupTag` (a lookup key is in
    /// use) a store may leave out lines tagged with another tag of the same key; nil: every line.
    func users(lookupTag: String?, keyID: String?) async throws -> UsersFile
    /// The enabled users that have a TOTP secret.
    func totpUsers() async throws -> [UserRecord]
    /// Records that `user` used TOTP step `step`; false when that step or a later one was used.
    func claimTOTPStep(user: String, step: Int) async throws -> Bool
    /// If `code` is a live one-time code, uses it up and returns its user (even one who has
    /// been removed since: the caller checks).
    func redeemCode(_ code: SecretDigits, now: Date) async throws -> String?
    /// Whether `name` is a user now.
    func hasUser(_ name: String) async throws -> Bool
    /// Runs `body` with `terminal`'s lockout state, exclusively (across every instance that
    /// shares the store), and keeps the state it leaves. `body` reads and changes the rest of
    /// the state through the store it is handed (for PostgreSQL: the same transaction). If
    /// `body` throws, nothing it did is kept.
    func withLockout<R: Sendable>(
        terminal: String, policy: LockoutPolicy, _ body: @escaping @Sendable (inout LockoutTracker, any VerifierStore) async throws -> R
    ) async throws -> R
    /// Appends one audit record (never a PIN or code).
    func audit(_ fields: [(String, String)]) async throws
    /// Nil when the store can be used now, else why not (for `/healthz`).
    func healthProblem() async -> String?
}
