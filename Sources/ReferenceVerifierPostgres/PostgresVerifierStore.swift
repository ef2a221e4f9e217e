import Foundation
import KeypadCore
import KeypadVerifier
import Logging
import PostgresNIO
import ReferenceVerifierCore

/// The reference verifier's state in PostgreSQL (`server.store: postgres`), shared by every
/// instance that uses the database:
/// - a `webhook-id` is a primary key, so a request replayed to another instance is refused;
/// - a terminal's lockout row is locked (`SELECT ... FOR UPDATE`) for the whole attempt, so
///   the instances keep one exact count, and the attempt's other reads and writes run in
///   that transaction;
/// - a one-time code is used up, and a TOTP step claimed, by an `UPDATE` whose condition
///   only one transaction can meet, so each opens the door once at most.
/// Any database error or timeout throws (the terminal is answered 503).
public final class PostgresVerifierStore: VerifierStore {
    public let database: PostgresVerifierDatabase
    /// Who wrote an audit row (e.g. `host:port`).
    public let instance: String
    /// How long a `webhook-id` is remembered.
    public let replayWindow: TimeInterval

    public init(database: PostgresVerifierDatabase, instance: String, replayWindow: TimeInterval = ReplayLog.defaultWindow) {
        self.database = database
        self.instance = instance
        self.replayWindow = replayWindow
    }

    private func queries(_ connection: PostgresConnection) -> VerifierQueries {
        VerifierQueries(connection: connection, logger: database.logger)
    }

    public func claimRequestID(_ id: String, now: Date) async throws -> Bool {
        let window = replayWindow
        return try await database.use { [self] in try await queries($0).claimRequestID(id, now: now, window: window) }
    }

    public func users(lookupTag: String?, keyID: String?) async throws -> UsersFile {
        try await database.use { [self] in try await queries($0).users(lookupTag: lookupTag, keyID: keyID) }
    }

    public func totpUsers() async throws -> [UserRecord] {
        try await database.use { [self] in try await queries($0).totpUsers() }
    }

    public func claimTOTPStep(user: String, step: Int) async throws -> Bool {
        try await database.use { [self] in try await queries($0).claimTOTPStep(user: user, step: step) }
    }

    public func redeemCode(_ code: SecretDigits, now: Date) async throws -> String? {
        try await database.use { [self] in try await queries($0).redeemCode(code, now: now) }
    }

    public func hasUser(_ name: String) async throws -> Bool {
        try await database.use { [self] in try await queries($0).hasUser(name) }
    }

    public func withLockout<R: Sendable>(
        terminal: String, policy: LockoutPolicy, _ body: @escaping @Sendable (inout LockoutTracker, any VerifierStore) async throws -> R
    ) async throws -> R {
        try await database.transaction { [self] connection in
            let queries = queries(connection)
            var tracker = try await queries.lockLockout(terminal: terminal, policy: policy)
            let result = try await body(&tracker, TransactionStore(queries: queries))
            try await queries.saveLockout(terminal: terminal, tracker: tracker)
            return result
        }
    }

    public func audit(_ fields: [(String, String)]) async throws {
        let instance = self.instance
        try await database.use { [self] in try await queries($0).audit(fields, instance: instance) }
    }

    public func healthProblem() async -> String? {
        do {
            try await database.use { [logger = database.logger] in _ = try await $0.query("SELECT 1", logger: logger) }
            return nil
        } catch {
            return PostgresVerifierDatabase.describe(error)
        }
    }
}

/// The store as seen inside one attempt's transaction: every read and write on its connection.
struct TransactionStore: VerifierStore {
    let queries: VerifierQueries

    func claimRequestID(_ id: String, now: Date) async throws -> Bool {
        throw PostgresVerifierDatabase.Failure(description: "a webhook-id is claimed before the attempt's transaction")
    }

    func users(lookupTag: String?, keyID: String?) async throws -> UsersFile {
        try await queries.users(lookupTag: lookupTag, keyID: keyID)
    }

    func totpUsers() async throws -> [UserRecord] { try await queries.totpUsers() }

    func claimTOTPStep(user: String, step: Int) async throws -> Bool {
        try await queries.claimTOTPStep(user: user, step: step)
    }

    func redeemCode(_ code: SecretDigits, now: Date) async throws -> String? {
        try await queries.redeemCode(code, now: now)
    }

    func hasUser(_ name: String) async throws -> Bool { try await queries.hasUser(name) }

    func withLockout<R: Sendable>(
        terminal: String, policy: LockoutPolicy, _ body: @escaping @Sendable (inout LockoutTracker, any VerifierStore) async throws -> R
    ) async throws -> R {
        throw PostgresVerifierDatabase.Failure(description: "an attempt's transaction does not nest")
    }

    func audit(_ fields: [(String, String)]) async throws {
        throw PostgresVerifierDatabase.Failure(description: "the audit is written after the attempt's transaction")
    }

    func healthProblem() async -> String? { nil }
}
