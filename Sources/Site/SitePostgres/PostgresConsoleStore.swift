import Foundation
import KioskPadAccess
import PostgresNIO
import SiteCore

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
                "SELECT name, hash, failed_logins, locked_until, totp_secret FROM kioskpad_admins WHERE name = \(name)", logger: logger)
            for try await (found, hash, failures, locked, totp) in rows.decode((String, String, Int, Double?, String?).self) {
                return AdminAccount(
                    name: found, hash: try PINHash(parsing: hash), failedLogins: failures, lockedUntil: locked.map { Date(timeIntervalSince1970: $0) },
                    totpSecret: totp.flatMap(TOTP.base32Decode))
            }
            return nil
        }
    }

    public func setAdminTOTP(name: String, secret: [UInt8]?) async throws -> Bool {
        let encoded = secret.map(TOTP.base32Encode)
        return try await changed("UPDATE kioskpad_admins SET totp_secret = \(encoded), totp_last_step = NULL WHERE name = \(name) RETURNING 1")
    }

    public func claimAdminTOTPStep(name: String, step: Int) async throws -> Bool {
        try await changed(
            "UPDATE kioskpad_admins SET totp_last_step = \(step) WHERE name = \(name) AND (totp_last_step IS NULL OR totp_last_step < \(step)) RETURNING 1")
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
                    tokenHash: hash, admin: admin, csrfToken: csrf, created: Date(timeIntervalSince1970: created), expires: Date(timeIntervalSince1970: expires)
                )
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
        var bindings = PostgresBindings()
        func bind(_ value: some PostgresThrowingDynamicTypeEncodable) throws -> String {
            try bindings.append(value)
            return "$\(bindings.count)"
        }
        var parts: [String] = []
        if filter.decision != "event" {
            // The same expressions as the partial indexes of schema version 4.
            var conditions = ["record->>'decision' IN ('granted', 'denied')"]
            if let door = filter.door { conditions.append("record->>'terminal_id' = \(try bind(door))") }
            if let user = filter.user { conditions.append("record->>'user' = \(try bind(user))") }
            if let decision = filter.decision { conditions.append("record->>'decision' = \(try bind(decision))") }
            if let from = filter.from { conditions.append("at >= to_timestamp(\(try bind(from.timeIntervalSince1970)))") }
            if let until = filter.until { conditions.append("at < to_timestamp(\(try bind(until.timeIntervalSince1970)))") }
            parts.append(
                """
                (SELECT extract(epoch FROM at)::double precision AS t, record->>'terminal_id' AS door, record->>'user' AS who,
                    record->>'decision' AS decision, record->>'reason' AS detail, 0 AS source, id AS tiebreak
                FROM kioskpad_audit WHERE \(conditions.joined(separator: " AND ")) ORDER BY id DESC LIMIT \(try bind(offset + limit)))
                """)
        }
        if filter.decision == nil || filter.decision == "event" {
            // Of the door events only a duress record names a user.
            var conditions = ["type = ANY(\(try bind(filter.user == nil ? EntryRow.eventTypes : ["duress"])))"]
            if let door = filter.door { conditions.append("terminal_id = \(try bind(door))") }
            if let user = filter.user { conditions.append("record->>'user' = \(try bind(user))") }
            if let from = filter.from { conditions.append("at >= \(try bind(from.timeIntervalSince1970))") }
            if let until = filter.until { conditions.append("at < \(try bind(until.timeIntervalSince1970))") }
            parts.append(
                """
                (SELECT at AS t, terminal_id AS door, record->>'user' AS who, 'event' AS decision, type AS detail, 1 AS source, seq AS tiebreak
                FROM kioskpad_events WHERE \(conditions.joined(separator: " AND ")) ORDER BY at DESC LIMIT \(try bind(offset + limit)))
                """)
        }
        // Both sources merged newest first in the database: only the page's rows come out.
        let sql = """
            SELECT t, door, who, decision, detail FROM (\(parts.joined(separator: " UNION ALL "))) merged
            ORDER BY t DESC, source, tiebreak DESC LIMIT \(try bind(limit)) OFFSET \(try bind(offset))
            """
        let query = PostgresQuery(unsafeSQL: sql, binds: bindings)
        return try await database.use { connection in
            var rows: [EntryRow] = []
            for try await (at, door, user, decision, detail) in try await connection.query(query, logger: logger).decode(
                (Double, String?, String?, String?, String?).self)
            {
                rows.append(EntryRow(time: Date(timeIntervalSince1970: at), door: door ?? "", user: user, decision: decision ?? "", detail: detail ?? ""))
            }
            return rows
        }
    }

    /// Runs one statement ending in `RETURNING 1`; true when it changed a row.
    private func changed(_ query: PostgresQuery) async throws -> Bool {
        try await database.rowsChanged(query) > 0
    }
}
