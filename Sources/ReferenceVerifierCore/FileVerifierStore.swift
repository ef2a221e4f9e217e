import Foundation
import KeypadCore
import KeypadVerifier
import Synchronization

/// The reference verifier's state for one instance (`server.store: file`): users from a
/// file (or a fixed list), one-time codes in a locked file, the replay cache in a
/// ``ReplayLog``, the audit in an ``AuditLog``; lockout counters and TOTP steps in memory.
/// Lockout is exclusive per terminal because ``ReferenceVerifier`` decides one attempt per
/// terminal at a time.
public final class FileVerifierStore: VerifierStore {
    private let usersNow: @Sendable () throws -> UsersFile
    private let codes: OneTimeCodeStore?
    private let auditLog: AuditLog?
    private let replays: ReplayLog
    private let lockouts = Mutex<[String: LockoutTracker]>([:])
    private let totpLastStep = Mutex<[String: Int]>([:])

    /// `replays` nil keeps the replay cache in memory only (tests).
    public init(users: @escaping @Sendable () throws -> UsersFile, codes: OneTimeCodeStore?, audit: AuditLog?, replays: ReplayLog? = nil) {
        usersNow = users
        self.codes = codes
        auditLog = audit
        self.replays = replays ?? ReplayLog()
    }

    public func claimRequestID(_ id: String, now: Date) async throws -> Bool {
        try replays.insert(id, now: now)
    }

    /// The whole file: its own ``UsersFile/match(_:kind:lookup:)`` picks the candidates.
    public func users(lookupTag: String?, keyID: String?) async throws -> UsersFile {
        try usersNow()
    }

    public func totpUsers() async throws -> [UserRecord] {
        try usersNow().users.filter { $0.totpSecret != nil }
    }

    public func claimTOTPStep(user: String, step: Int) async throws -> Bool {
        totpLastStep.withLock { last in
            guard step > last[user, default: Int.min] else { return false }
            last[user] = step
            return true
        }
    }

    public func redeemCode(_ code: SecretDigits, now: Date) async throws -> String? {
        try codes?.redeem(code)
    }

    public func hasUser(_ name: String) async throws -> Bool {
        try usersNow().users.contains { $0.name == name }
    }

    public func withLockout<R: Sendable>(
        terminal: String, policy: LockoutPolicy, _ body: @escaping @Sendable (inout LockoutTracker, any VerifierStore) async throws -> R
    ) async throws -> R {
        var tracker = lockouts.withLock { $0[terminal] } ?? LockoutTracker(policy: policy)
        let result = try await body(&tracker, self)
        lockouts.withLock { $0[terminal] = tracker }
        return result
    }

    public func audit(_ fields: [(String, String)]) async throws {
        try auditLog?.append(fields)
    }

    public func healthProblem() async -> String? { nil }
}
