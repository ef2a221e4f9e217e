import Foundation
import KioskPadAccess
import KioskPadCore
import SQLiteNIO
import SiteCore

/// The reference verifier's state in one SQLite file (`server.store: sqlite`, the default;
/// one instance). An attempt's hashes are checked against rows read without a lock; its
/// claims (a one-time code, a TOTP step), its terminal's lockout and its audit record are
/// then one write transaction, committed before the answer is sent. The conditions that
/// only one transaction can meet (`used_at IS NULL`, a later TOTP step) make each code and
/// step open the door once at most.
public final class SQLiteVerifierStore: VerifierStore {
    public let database: SQLiteVerifierDatabase
    /// Who wrote an audit row (e.g. `host:port`).
    public let instance: String
    /// How long a `webhook-id` is remembered.
    public let replayWindow: TimeInterval

    public init(database: SQLiteVerifierDatabase, instance: String, replayWindow: TimeInterval = ReplayWindow.seconds) {
        self.database = database
        self.instance = instance
        self.replayWindow = replayWindow
    }

    /// With a tag: four index searches, not a scan (SQLite does not use the indexes for the
    /// `OR` of these conditions, nor for the ranges under an `ORDER BY id`, so the rows are
    /// put in order here). A tag's rows carry its key's id, so the parts are disjoint.
    public func users(lookupTag: String?, keyID: String?) async throws -> UsersFile {
        let rows = try await database.read { sql in
            if let lookupTag, let keyID {
                return try await sql.execute(
                    """
                    SELECT id, name, kind, hash, lookup_tag, totp_secret FROM kioskpad_users WHERE lookup_tag = ?1 AND enabled
                    UNION ALL SELECT id, name, kind, hash, lookup_tag, totp_secret FROM kioskpad_users WHERE lookup_key_id IS NULL AND enabled
                    UNION ALL SELECT id, name, kind, hash, lookup_tag, totp_secret FROM kioskpad_users WHERE lookup_key_id < ?2 AND enabled
                    UNION ALL SELECT id, name, kind, hash, lookup_tag, totp_secret FROM kioskpad_users WHERE lookup_key_id > ?2 AND enabled
                    """, [.text(lookupTag), .text(keyID)]
                ).sorted { ($0.columns[0].data.integer ?? 0) < ($1.columns[0].data.integer ?? 0) }
            }
            return try await sql.execute("SELECT id, name, kind, hash, lookup_tag, totp_secret FROM kioskpad_users WHERE enabled ORDER BY id")
        }
        return UsersFile(users: try SQLiteRows.users(rows, from: 1))
    }

    public func totpUsers() async throws -> [UserRecord] {
        try SQLiteRows.users(
            try await database.read { sql in
                try await sql.execute(
                    """
                    SELECT name, kind, hash, lookup_tag, totp_secret FROM kioskpad_users
                    WHERE enabled AND kind = 'pin' AND totp_secret IS NOT NULL ORDER BY id
                    """)
            })
    }

    public func liveCodes(now: Date) async throws -> [IssuedCode] {
        let rows = try await database.read { sql in
            try await sql.execute(
                "SELECT id, user_name, hash, door FROM kioskpad_codes WHERE used_at IS NULL AND expires_at > ? ORDER BY id",
                [.int(Int64(now.timeIntervalSince1970))])
        }
        return try rows.map { row in
            IssuedCode(
                id: try SQLiteRows.integer(row, 0), user: try SQLiteRows.text(row, 1), hash: try PINHash(parsing: try SQLiteRows.text(row, 2)),
                door: row.columns[3].data.string)
        }
    }

    public func doorSecret(terminal: String) async throws -> WebhookSecret? {
        let text = try await database.read { sql in
            try await sql.execute("SELECT secret FROM kioskpad_doors WHERE terminal_id = ?", [.text(terminal)]).first.map { try SQLiteRows.text($0, 0) }
        }
        return try text.map { try WebhookSecret(parsing: $0) }
    }

    public func lockout(terminal: String, policy: LockoutPolicy) async throws -> LockoutTracker {
        try await database.read { try await SQLiteLockouts.read(terminal: terminal, policy: policy, $0) }
    }

    public func commitAttempt<R: Sendable>(
        terminal: String, policy: LockoutPolicy, _ body: @escaping @Sendable (inout LockoutTracker, any AttemptTransaction) async throws -> R
    ) async throws -> R {
        let (instance, replayWindow) = (self.instance, self.replayWindow)
        return try await database.write { sql in
            var tracker = try await SQLiteLockouts.read(terminal: terminal, policy: policy, sql)
            let result = try await body(&tracker, SQLiteAttemptTransaction(sql: sql, instance: instance, replayWindow: replayWindow))
            try await SQLiteLockouts.save(terminal: terminal, tracker: tracker, sql)
            return result
        }
    }

    public func storeEvents(_ events: [DoorEvent]) async throws -> Int {
        try await database.write { sql in
            var stored = 0
            for event in events {
                stored += try await sql.execute(
                    """
                    INSERT INTO kioskpad_events (id, terminal_id, type, at, seq, record) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (id) DO NOTHING RETURNING 1
                    """,
                    [
                        .text(event.id), .text(event.terminalID), .text(event.type), .float(event.time.timeIntervalSince1970),
                        .int(Int64(event.sequence)), .text(event.json),
                    ]
                ).count
            }
            return stored
        }
    }

    public func recentEvents(perTerminal limit: Int) async throws -> [(terminal: String, newestFirst: [DoorEvent])] {
        try await database.read { sql in
            var doors: [(terminal: String, newestFirst: [DoorEvent])] = []
            for row in try await sql.execute(DoorListQuery.sql) {
                let terminal = try SQLiteRows.text(row, 0)
                let rows = try await sql.execute(
                    "SELECT id, type, at, seq, record FROM kioskpad_events WHERE terminal_id = ? ORDER BY at DESC, seq DESC LIMIT ?",
                    [.text(terminal), .int(Int64(limit))])
                doors.append(
                    (
                        terminal,
                        try rows.map { row in
                            DoorEvent(
                                id: try SQLiteRows.text(row, 0), terminalID: terminal, type: try SQLiteRows.text(row, 1),
                                time: Date(timeIntervalSince1970: row.columns[2].data.double ?? 0), sequence: Int(try SQLiteRows.integer(row, 3)),
                                json: try SQLiteRows.text(row, 4))
                        }
                    ))
            }
            return doors
        }
    }

    public func pruneEvents(before cutoff: Date, after future: Date) async throws -> Int {
        try await database.write { sql in
            try await sql.execute(
                "DELETE FROM kioskpad_events WHERE at < ? OR at > ? RETURNING 1", [.float(cutoff.timeIntervalSince1970), .float(future.timeIntervalSince1970)]
            ).count
        }
    }

    public func claimRequestID(_ id: String, now: Date) async throws -> Bool {
        let (instance, replayWindow) = (self.instance, self.replayWindow)
        return try await database.write { sql in
            try await SQLiteAttemptTransaction(sql: sql, instance: instance, replayWindow: replayWindow).claimRequestID(id, now: now)
        }
    }

    public func audit(_ fields: [(String, String)]) async throws {
        let instance = self.instance
        try await database.write { try await SQLiteAudit.append(fields, instance: instance, $0) }
    }

    public func healthProblem() async -> String? {
        await database.healthProblem()
    }
}

/// One attempt's claims and audit record, inside its write transaction.
struct SQLiteAttemptTransaction: AttemptTransaction {
    let sql: SQLiteStatements
    let instance: String
    let replayWindow: TimeInterval

    func claimRequestID(_ id: String, now: Date) async throws -> Bool {
        let seconds = Int64(now.timeIntervalSince1970)
        let claimed =
            try await sql.execute(
                """
                INSERT INTO kioskpad_replay (webhook_id, expires_at) VALUES (?, ?)
                ON CONFLICT (webhook_id) DO UPDATE SET expires_at = excluded.expires_at WHERE kioskpad_replay.expires_at <= ?
                RETURNING 1
                """, [.text(id), .int(seconds + Int64(replayWindow)), .int(seconds)]
            ).count > 0
        if claimed && Int.random(in: 0..<64) == 0 {
            // Now and then (1 request in 64 on average): forget the ids whose window passed.
            try await sql.execute("DELETE FROM kioskpad_replay WHERE expires_at <= ?", [.int(seconds)])
        }
        return claimed
    }

    func claimTOTPStep(user: String, step: Int) async throws -> Bool {
        try await sql.execute(
            """
            UPDATE kioskpad_users SET totp_last_step = ?
            WHERE name = ? AND kind = 'pin' AND (totp_last_step IS NULL OR totp_last_step < ?)
            RETURNING 1
            """, [.int(Int64(step)), .text(user), .int(Int64(step))]
        ).count > 0
    }

    func useCode(id: Int64, now: Date) async throws -> Bool {
        let seconds = Int64(now.timeIntervalSince1970)
        return try await sql.execute(
            "UPDATE kioskpad_codes SET used_at = ? WHERE id = ? AND used_at IS NULL AND expires_at > ? RETURNING 1",
            [.int(seconds), .int(id), .int(seconds)]
        ).count > 0
    }

    func access(user name: String) async throws -> UserAccess? {
        try await SQLiteSiteRulesTransaction.access(user: name, sql)
    }

    func audit(_ fields: [(String, String)]) async throws {
        try await SQLiteAudit.append(fields, instance: instance, sql)
    }
}

/// The audit table: one JSON object of string fields per record.
enum SQLiteAudit {
    static func append(_ fields: [(String, String)], instance: String, _ sql: SQLiteStatements) async throws {
        let json = try AuditRecordJSON.encode(fields)
        try await sql.execute("INSERT INTO kioskpad_audit (instance, record) VALUES (?, ?)", [.text(instance), .text(json)])
    }
}

/// A terminal's lockout row: recent denials as ``LockoutHistory`` text.
enum SQLiteLockouts {
    static func read(terminal: String, policy: LockoutPolicy, _ sql: SQLiteStatements) async throws -> LockoutTracker {
        let rows = try await sql.execute(
            "SELECT failures, streak, locked_until FROM kioskpad_lockout WHERE terminal_id = ?", [.text(terminal)])
        guard let row = rows.first else { return LockoutTracker(policy: policy) }
        return tracker(row, offset: 0, policy: policy)
    }

    /// The tracker in `row`'s columns `offset` (failures), +1 (streak), +2 (locked until).
    static func tracker(_ row: SQLiteRow, offset: Int, policy: LockoutPolicy) -> LockoutTracker {
        let columns = row.columns
        return LockoutTracker(
            policy: policy, failureTimes: LockoutHistory.failures(columns[offset].data.string ?? ""), streak: Int(columns[offset + 1].data.integer ?? 0),
            lockedUntil: columns[offset + 2].data.double.map { Duration.seconds($0) })
    }

    static func save(terminal: String, tracker: LockoutTracker, _ sql: SQLiteStatements) async throws {
        let failures = LockoutHistory.text(tracker.failureTimes)
        try await sql.execute(
            """
            INSERT INTO kioskpad_lockout (terminal_id, failures, streak, locked_until) VALUES (?, ?, ?, ?)
            ON CONFLICT (terminal_id) DO UPDATE SET failures = excluded.failures, streak = excluded.streak, locked_until = excluded.locked_until
            """, [.text(terminal), .text(failures), .int(Int64(tracker.streak)), tracker.lockedUntil.map { .float($0.timeInterval) } ?? .null])
    }
}

/// Reading typed columns out of rows, with an error naming the column that did not fit.
enum SQLiteRows {
    static func text(_ row: SQLiteRow, _ index: Int) throws -> String {
        guard index < row.columns.count, let value = row.columns[index].data.string else { throw mismatch(row, index) }
        return value
    }

    static func integer(_ row: SQLiteRow, _ index: Int) throws -> Int64 {
        guard index < row.columns.count, let value = row.columns[index].data.integer else { throw mismatch(row, index) }
        return Int64(value)
    }

    /// User lines from rows of `name, kind, hash, lookup_tag, totp_secret`, starting at column `first`.
    static func users(_ rows: [SQLiteRow], from first: Int = 0) throws -> [UserRecord] {
        try rows.map { row in
            UserRecord(
                name: try text(row, first), kind: try text(row, first + 1), pinHash: try PINHash(parsing: try text(row, first + 2)),
                totpSecret: row.columns[first + 4].data.string.flatMap(TOTP.base32Decode), lookupTag: row.columns[first + 3].data.string)
        }
    }

    private static func mismatch(_ row: SQLiteRow, _ index: Int) -> SQLiteVerifierDatabase.Failure {
        let name = index < row.columns.count ? row.columns[index].name : "#\(index)"
        return SQLiteVerifierDatabase.Failure(description: "database: column \(name) does not hold what it should")
    }
}

extension SQLiteData {
    /// An integer bind, whatever width sqlite-nio's integer has on this platform.
    static func int(_ value: Int64) -> SQLiteData {
        .integer(SQLiteInt64(value))
    }
}
