import Foundation
import KeypadVerifier
import PostgresNIO
import ReferenceVerifierCore

/// The site console's administrators, sessions, acknowledgements and "who entered" in the
/// shared PostgreSQL database (schema version 4): every instance sees the same sessions.
public struct PostgresConsoleStore: ConsoleStore {
    let database: PostgresVerifierDatabase

    public init(database: PostgresVerifierDatabase) {
        self.database = database
    }

    public func addAdmin(name: String, hash: PINHash) async throws -> Bool {
        try await changed("INSERT INTO kioskpad_admins (name, hash) VALUES (\(name), \(hash.description)) ON CONFLICT (name) DO NOTHING RETURNING 1")
    }

    public func removeAdmin(name: String) async throws -> Bool {
        let logger = database.logger
        return try await database.transaction { connection in
            try await connection.query("DELETE FROM kioskpad_console_sessions WHERE admin_name = \(name)", logger: logger)
            var removed = false
            for try await _ in try await connection.query("DELETE FROM kioskpad_admins WHERE name = \(name) RETURNING 1", logger: logger).decode(Int.self) {
                removed = true
            }
            return removed
        }
    }

    public func adminNames() async throws -> [String] {
        let logger = database.logger
        return try await database.use { connection in
            var names: [String] = []
            for try await name in try await connection.query("SELECT name FROM kioskpad_admins ORDER BY name", logger: logger).decode(String.self) {
                names.append(name)
            }
            return names
        }
    }

    public func admin(name: String) async throws -> AdminAccount? {
        let logger = database.logger
        return try await database.use { connection in
            let rows = try await connection.query(
                "SELECT name, hash, failed_logins, locked_until FROM kioskpad_admins WHERE name = \(name)", logger: logger)
            for try await (found, hash, failures, locked) in rows.decode((String, String, Int, Double?).self) {
                return AdminAccount(
                    name: found, hash: try PINHash(parsing: hash), failedLogins: failures, lockedUntil: locked.map { Date(timeIntervalSince1970: $0) })
            }
            return nil
        }
    }

    public func noteFailedLogin(name: String, now: Date, limit: Int, lockFor: TimeInterval) async throws {
        let until = now.timeIntervalSince1970 + lockFor
        _ = try await changed(
            """
            UPDATE kioskpad_admins SET failed_logins = failed_logins + 1,
                locked_until = CASE WHEN failed_logins + 1 >= \(limit) THEN \(until) ELSE locked_until END
            WHERE name = \(name) RETURNING 1
            """)
    }

    public func clearFailedLogins(name: String) async throws {
        _ = try await changed("UPDATE kioskpad_admins SET failed_logins = 0, locked_until = NULL WHERE name = \(name) RETURNING 1")
    }

    public func createSession(_ session: ConsoleSession, idle: TimeInterval) async throws {
        let logger = database.logger
        let created = session.created.timeIntervalSince1970
        let expires = session.expires.timeIntervalSince1970
        let idleUntil = created + idle
        try await database.transaction { connection in
            try await connection.query("DELETE FROM kioskpad_console_sessions WHERE expires_at < \(created) OR idle_until < \(created)", logger: logger)
            try await connection.query(
                """
                INSERT INTO kioskpad_console_sessions (token_hash, admin_name, csrf, created_at, expires_at, idle_until)
                VALUES (\(session.tokenHash), \(session.admin), \(session.csrfToken), \(created), \(expires), \(idleUntil))
                """, logger: logger)
        }
    }

    public func session(tokenHash: String, now: Date, idle: TimeInterval) async throws -> ConsoleSession? {
        let logger = database.logger
        let at = now.timeIntervalSince1970
        let idleUntil = at + idle
        return try await database.use { connection in
            let rows = try await connection.query(
                """
                UPDATE kioskpad_console_sessions SET idle_until = \(idleUntil)
                WHERE token_hash = \(tokenHash) AND expires_at > \(at) AND idle_until > \(at)
                  AND admin_name IN (SELECT name FROM kioskpad_admins)
                RETURNING token_hash, admin_name, csrf, created_at, expires_at
                """, logger: logger)
            for try await (hash, admin, csrf, created, expires) in rows.decode((String, String, String, Double, Double).self) {
                return ConsoleSession(
                    tokenHash: hash, admin: admin, csrfToken: csrf, created: Date(timeIntervalSince1970: created), expires: Date(timeIntervalSince1970: expires))
            }
            return nil
        }
    }

    public func endSession(tokenHash: String) async throws {
        _ = try await changed("DELETE FROM kioskpad_console_sessions WHERE token_hash = \(tokenHash) RETURNING 1")
    }

    public func acknowledge(terminal: String, alert: String, admin: String, at: Date) async throws {
        let time = at.timeIntervalSince1970
        _ = try await changed(
            """
            INSERT INTO kioskpad_alert_acks (terminal_id, alert, admin_name, at) VALUES (\(terminal), \(alert), \(admin), \(time))
            ON CONFLICT (terminal_id, alert) DO UPDATE SET admin_name = excluded.admin_name, at = excluded.at RETURNING 1
            """)
    }

    public func acknowledgements() async throws -> [AlertAcknowledgement] {
        let logger = database.logger
        return try await database.use { connection in
            var acks: [AlertAcknowledgement] = []
            let rows = try await connection.query("SELECT terminal_id, alert, admin_name, at FROM kioskpad_alert_acks", logger: logger)
            for try await (terminal, alert, admin, at) in rows.decode((String, String, String, Double).self) {
                acks.append(AlertAcknowledgement(terminal: terminal, alert: alert, admin: admin, at: Date(timeIntervalSince1970: at)))
            }
            return acks
        }
    }

    public func unusedCodes(now: Date) async throws -> [UnusedCode] {
        let logger = database.logger
        let at = Int64(now.timeIntervalSince1970)
        return try await database.use { connection in
            var codes: [UnusedCode] = []
            let rows = try await connection.query(
                "SELECT id, user_name, door, expires_at FROM kioskpad_codes WHERE used_at IS NULL AND expires_at > \(at) ORDER BY id DESC", logger: logger)
            for try await (id, user, door, expires) in rows.decode((Int64, String, String?, Int64).self) {
                codes.append(UnusedCode(id: id, user: user, door: door, expires: Date(timeIntervalSince1970: TimeInterval(expires))))
            }
            return codes
        }
    }

    public func revokeCode(id: Int64, now: Date) async throws -> Bool {
        let at = Int64(now.timeIntervalSince1970)
        return try await changed("UPDATE kioskpad_codes SET used_at = \(at) WHERE id = \(id) AND used_at IS NULL AND expires_at > \(at) RETURNING 1")
    }

    public func entries(_ filter: EntryFilter, offset: Int, limit: Int) async throws -> [EntryRow] {
        let logger = database.logger
        let wanted = offset + limit
        let from = filter.from?.timeIntervalSince1970, until = filter.until?.timeIntervalSince1970
        return try await database.use { connection in
            var decisions: [EntryRow] = []
            if filter.decision != "event" {
                // A nil filter binds NULL and drops out of the plan.
                let rows = try await connection.query(
                    """
                    SELECT extract(epoch FROM at)::double precision, record->>'terminal_id', record->>'user', record->>'decision', record->>'reason'
                    FROM kioskpad_audit
                    WHERE record->>'decision' IN ('granted', 'denied')
                      AND (\(filter.door)::text IS NULL OR record->>'terminal_id' = \(filter.door))
                      AND (\(filter.user)::text IS NULL OR record->>'user' = \(filter.user))
                      AND (\(filter.decision)::text IS NULL OR record->>'decision' = \(filter.decision))
                      AND (\(from)::double precision IS NULL OR at >= to_timestamp(\(from)))
                      AND (\(until)::double precision IS NULL OR at < to_timestamp(\(until)))
                    ORDER BY id DESC LIMIT \(wanted)
                    """, logger: logger)
                for try await (at, door, user, decision, reason) in rows.decode((Double, String?, String?, String?, String?).self) {
                    decisions.append(EntryRow(time: Date(timeIntervalSince1970: at), door: door ?? "", user: user, decision: decision ?? "", detail: reason ?? ""))
                }
            }
            var events: [EntryRow] = []
            if filter.decision == nil || filter.decision == "event" {
                let rows = try await connection.query(
                    """
                    SELECT at, terminal_id, record->>'user', type FROM kioskpad_events
                    WHERE type = ANY(\(EntryRow.eventTypes))
                      AND (\(filter.door)::text IS NULL OR terminal_id = \(filter.door))
                      AND (\(filter.user)::text IS NULL OR record->>'user' = \(filter.user))
                      AND (\(from)::double precision IS NULL OR at >= \(from))
                      AND (\(until)::double precision IS NULL OR at < \(until))
                    ORDER BY at DESC LIMIT \(wanted)
                    """, logger: logger)
                for try await (at, door, user, type) in rows.decode((Double, String, String?, String).self) {
                    events.append(EntryRow(time: Date(timeIntervalSince1970: at), door: door, user: user, decision: "event", detail: type))
                }
            }
            return EntryRow.page(decisions, events, offset: offset, limit: limit)
        }
    }

    /// Runs one statement ending in `RETURNING 1`; true when it changed a row.
    private func changed(_ query: PostgresQuery) async throws -> Bool {
        let logger = database.logger
        return try await database.use { connection in
            var any = false
            for try await _ in try await connection.query(query, logger: logger).decode(Int.self) { any = true }
            return any
        }
    }
}
