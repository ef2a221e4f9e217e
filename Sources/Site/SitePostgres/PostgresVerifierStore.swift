import Foundation
import KioskPadAccess
import KioskPadCore
import Logging
import PostgresNIO
import SiteCore

/// The reference verifier's state in PostgreSQL (`server.store: postgres`), shared by every
/// instance that uses the database:
/// - a `webhook-id` is a primary key, so a request replayed to another instance is refused;
/// - a terminal's lockout row is locked (`SELECT ... FOR UPDATE`) while the attempt's claims
///   and audit record are written in one transaction, so the instances keep one exact count;
/// - a one-time code is used up, and a TOTP step claimed, by an `UPDATE` whose condition
///   only one transaction can meet, so each opens the door once at most.
/// Any database error or timeout throws (the terminal is answered 503).
public final class PostgresVerifierStore: VerifierStore {
    public let database: PostgresVerifierDatabase
    /// Who wrote an audit row (e.g. `host:port`).
    public let instance: String
    /// How long a `webhook-id` is remembered.
    public let replayWindow: TimeInterval

    public init(database: PostgresVerifierDatabase, instance: String, replayWindow: TimeInterval = ReplayWindow.seconds) {
        self.database = database
        self.instance = instance
        self.replayWindow = replayWindow
    }

    private func queries(_ connection: PostgresConnection) -> VerifierQueries {
        VerifierQueries(connection: connection, logger: database.logger)
    }

    public func users(lookupTag: String?, keyID: String?) async throws -> UsersFile {
        try await database.use { [self] in try await queries($0).users(lookupTag: lookupTag, keyID: keyID) }
    }

    public func totpUsers() async throws -> [UserRecord] {
        try await database.use { [self] in try await queries($0).totpUsers() }
    }

    public func liveCodes(now: Date) async throws -> [IssuedCode] {
        try await database.use { [self] in try await queries($0).liveCodes(now: now) }
    }

    public func doorSecret(terminal: String) async throws -> WebhookSecret? {
        try await database.use { [self] in try await queries($0).doorSecret(terminal: terminal) }
    }

    public func storeEvents(_ events: [DoorEvent]) async throws -> Int {
        let logger = database.logger
        return try await database.transaction { connection in
            var stored = 0
            for event in events {
                stored += try await connection.query(
                    """
                    INSERT INTO kioskpad_events (id, terminal_id, type, at, seq, record)
                    VALUES (\(event.id), \(event.terminalID), \(event.type), \(event.time.timeIntervalSince1970), \(event.sequence), \(event.json)::jsonb)
                    ON CONFLICT (id) DO NOTHING RETURNING 1
                    """, logger: logger
                ).count()
            }
            return stored
        }
    }

    public func recentEvents(perTerminal limit: Int) async throws -> [(terminal: String, newestFirst: [DoorEvent])] {
        let logger = database.logger
        return try await database.use { connection in
            var terminals: [String] = []
            for try await terminal in try await connection.query(
                PostgresQuery(unsafeSQL: DoorListQuery.sql), logger: logger
            ).decode(String.self) {
                terminals.append(terminal)
            }
            var doors: [(terminal: String, newestFirst: [DoorEvent])] = []
            for terminal in terminals {
                var events: [DoorEvent] = []
                let rows = try await connection.query(
                    "SELECT id, type, at, seq, record::text FROM kioskpad_events WHERE terminal_id = \(terminal) ORDER BY at DESC, seq DESC LIMIT \(limit)",
                    logger: logger)
                for try await (id, type, at, seq, record) in rows.decode((String, String, Double, Int, String).self) {
                    events.append(DoorEvent(id: id, terminalID: terminal, type: type, time: Date(timeIntervalSince1970: at), sequence: seq, json: record))
                }
                doors.append((terminal, events))
            }
            return doors
        }
    }

    public func pruneEvents(before cutoff: Date, after future: Date) async throws -> Int {
        let logger = database.logger
        return try await database.use { connection in
            try await connection.query(
                "DELETE FROM kioskpad_events WHERE at < \(cutoff.timeIntervalSince1970) OR at > \(future.timeIntervalSince1970) RETURNING 1", logger: logger
            ).count()
        }
    }

    public func claimRequestID(_ id: String, now: Date) async throws -> Bool {
        let window = replayWindow
        return try await database.use { [self] in try await queries($0).claimRequestID(id, now: now, window: window) }
    }

    public func lockout(terminal: String, policy: LockoutPolicy) async throws -> LockoutTracker {
        try await database.use { [self] in try await queries($0).lockout(terminal: terminal, policy: policy, forUpdate: false) }
    }

    public func commitAttempt<R: Sendable>(
        terminal: String, policy: LockoutPolicy, _ body: @escaping @Sendable (inout LockoutTracker, any AttemptTransaction) async throws -> R
    ) async throws -> R {
        let (instance, replayWindow) = (self.instance, self.replayWindow)
        return try await database.transaction { [self] connection in
            let queries = queries(connection)
            var tracker = try await queries.lockout(terminal: terminal, policy: policy, forUpdate: true)
            let result = try await body(&tracker, PostgresAttemptTransaction(queries: queries, instance: instance, replayWindow: replayWindow))
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

/// One attempt's claims and audit record, on its transaction's connection.
struct PostgresAttemptTransaction: AttemptTransaction {
    let queries: VerifierQueries
    let instance: String
    let replayWindow: TimeInterval

    func claimRequestID(_ id: String, now: Date) async throws -> Bool {
        try await queries.claimRequestID(id, now: now, window: replayWindow)
    }

    func claimTOTPStep(user: String, step: Int) async throws -> Bool {
        try await queries.claimTOTPStep(user: user, step: step)
    }

    func useCode(id: Int64, now: Date) async throws -> Bool {
        try await queries.useCode(id: id, now: now)
    }

    func access(user name: String) async throws -> UserAccess? {
        try await PostgresSiteRulesTransaction.access(user: name, connection: queries.connection, logger: queries.logger)
    }

    func audit(_ fields: [(String, String)]) async throws {
        try await queries.audit(fields, instance: instance)
    }
}
