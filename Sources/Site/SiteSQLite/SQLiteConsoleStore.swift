import Foundation
import KioskPadAccess
import SQLiteNIO
import SiteCore

/// The site console's administrators, sessions, acknowledgements and "who entered" in the
/// verifier's SQLite file (schema version 4).
public struct SQLiteConsoleStore: ConsoleStore {
    let database: SQLiteVerifierDatabase

    public init(database: SQLiteVerifierDatabase) {
        self.database = database
    }

    public func addAdmin(name: String, hash: PINHash) async throws -> Bool {
        try await database.write { sql in
            try await sql.execute(
                "INSERT INTO kioskpad_admins (name, hash) VALUES (?, ?) ON CONFLICT (name) DO NOTHING RETURNING 1",
                [.text(name), .text(hash.description)]
            ).count > 0
        }
    }

    public func removeAdmin(name: String) async throws -> Bool {
        try await database.write { sql in
            try await sql.execute("DELETE FROM kioskpad_console_sessions WHERE admin_name = ?", [.text(name)])
            return try await sql.execute("DELETE FROM kioskpad_admins WHERE name = ? RETURNING 1", [.text(name)]).count > 0
        }
    }

    public func adminNames() async throws -> [String] {
        try await database.read { try await $0.execute("SELECT name FROM kioskpad_admins ORDER BY name") }.map { try SQLiteRows.text($0, 0) }
    }

    public func admin(name: String) async throws -> AdminAccount? {
        let rows = try await database.read { sql in
            try await sql.execute("SELECT name, hash, failed_logins, locked_until, totp_secret FROM kioskpad_admins WHERE name = ?", [.text(name)])
        }
        return try rows.first.map { row in
            AdminAccount(
                name: try SQLiteRows.text(row, 0), hash: try PINHash(parsing: try SQLiteRows.text(row, 1)),
                failedLogins: Int(try SQLiteRows.integer(row, 2)), lockedUntil: row.columns[3].data.double.map { Date(timeIntervalSince1970: $0) },
                totpSecret: row.columns[4].data.string.flatMap(TOTP.base32Decode))
        }
    }

    public func setAdminTOTP(name: String, secret: [UInt8]?) async throws -> Bool {
        try await database.write { sql in
            try await sql.execute(
                "UPDATE kioskpad_admins SET totp_secret = ?, totp_last_step = NULL WHERE name = ? RETURNING 1",
                [SQLiteRows.optional(secret.map(TOTP.base32Encode)), .text(name)]
            ).count > 0
        }
    }

    public func claimAdminTOTPStep(name: String, step: Int) async throws -> Bool {
        try await database.write { sql in
            try await sql.execute(
                "UPDATE kioskpad_admins SET totp_last_step = ? WHERE name = ? AND (totp_last_step IS NULL OR totp_last_step < ?) RETURNING 1",
                [.int(Int64(step)), .text(name), .int(Int64(step))]
            ).count > 0
        }
    }

    public func noteFailedLogin(name: String, now: Date, limit: Int, lockFor: TimeInterval) async throws {
        _ = try await database.write { sql in
            try await sql.execute(
                """
                UPDATE kioskpad_admins SET failed_logins = failed_logins + 1,
                    locked_until = CASE WHEN failed_logins + 1 >= ? THEN ? ELSE locked_until END
                WHERE name = ?
                """,
                [.int(Int64(limit)), .float(now.timeIntervalSince1970 + lockFor), .text(name)])
        }
    }

    public func clearFailedLogins(name: String) async throws {
        _ = try await database.write { sql in
            try await sql.execute("UPDATE kioskpad_admins SET failed_logins = 0, locked_until = NULL WHERE name = ?", [.text(name)])
        }
    }

    public func createSession(_ session: ConsoleSession, idle: TimeInterval) async throws {
        try await database.write { sql in
            // Ended and expired sessions go as new ones come.
            try await sql.execute(
                "DELETE FROM kioskpad_console_sessions WHERE expires_at < ? OR idle_until < ?",
                [
                    .float(session.created.timeIntervalSince1970), .float(session.created.timeIntervalSince1970),
                ])
            try await sql.execute(
                "INSERT INTO kioskpad_console_sessions (token_hash, admin_name, csrf, created_at, expires_at, idle_until) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    .text(session.tokenHash), .text(session.admin), .text(session.csrfToken), .float(session.created.timeIntervalSince1970),
                    .float(session.expires.timeIntervalSince1970), .float(session.created.timeIntervalSince1970 + idle),
                ])
        }
    }

    public func session(tokenHash: String, now: Date, idle: TimeInterval) async throws -> ConsoleSession? {
        let at = now.timeIntervalSince1970
        let rows = try await database.write { sql in
            try await sql.execute(
                """
                UPDATE kioskpad_console_sessions SET idle_until = ?
                WHERE token_hash = ? AND expires_at > ? AND idle_until > ?
                  AND admin_name IN (SELECT name FROM kioskpad_admins)
                RETURNING token_hash, admin_name, csrf, created_at, expires_at
                """,
                [.float(at + idle), .text(tokenHash), .float(at), .float(at)])
        }
        return try rows.first.map { row in
            ConsoleSession(
                tokenHash: try SQLiteRows.text(row, 0), admin: try SQLiteRows.text(row, 1), csrfToken: try SQLiteRows.text(row, 2),
                created: Date(timeIntervalSince1970: row.columns[3].data.double ?? 0), expires: Date(timeIntervalSince1970: row.columns[4].data.double ?? 0))
        }
    }

    public func endSession(tokenHash: String) async throws {
        _ = try await database.write { try await $0.execute("DELETE FROM kioskpad_console_sessions WHERE token_hash = ?", [.text(tokenHash)]) }
    }

    public func acknowledge(terminal: String, alert: String, admin: String, at: Date) async throws {
        _ = try await database.write { sql in
            try await sql.execute(
                """
                INSERT INTO kioskpad_alert_acks (terminal_id, alert, admin_name, at) VALUES (?, ?, ?, ?)
                ON CONFLICT (terminal_id, alert) DO UPDATE SET admin_name = excluded.admin_name, at = excluded.at
                """,
                [.text(terminal), .text(alert), .text(admin), .float(at.timeIntervalSince1970)])
        }
    }

    public func acknowledgements() async throws -> [AlertAcknowledgement] {
        try await database.read { try await $0.execute("SELECT terminal_id, alert, admin_name, at FROM kioskpad_alert_acks") }.map { row in
            AlertAcknowledgement(
                terminal: try SQLiteRows.text(row, 0), alert: try SQLiteRows.text(row, 1), admin: try SQLiteRows.text(row, 2),
                at: Date(timeIntervalSince1970: row.columns[3].data.double ?? 0))
        }
    }

    public func unusedCodes(now: Date) async throws -> [UnusedCode] {
        try await database.read { sql in
            try await sql.execute(
                "SELECT id, user_name, door, expires_at FROM kioskpad_codes WHERE used_at IS NULL AND expires_at > ? ORDER BY id DESC",
                [.int(Int64(now.timeIntervalSince1970))])
        }.map { row in
            UnusedCode(
                id: try SQLiteRows.integer(row, 0), user: try SQLiteRows.text(row, 1), door: row.columns[2].data.string,
                expires: Date(timeIntervalSince1970: TimeInterval(try SQLiteRows.integer(row, 3))))
        }
    }

    public func revokeCode(id: Int64, now: Date) async throws -> Bool {
        try await database.write { sql in
            try await sql.execute(
                "UPDATE kioskpad_codes SET used_at = ? WHERE id = ? AND used_at IS NULL AND expires_at > ? RETURNING 1",
                [.int(Int64(now.timeIntervalSince1970)), .int(id), .int(Int64(now.timeIntervalSince1970))]
            ).count > 0
        }
    }

    public func entries(_ filter: EntryFilter, offset: Int, limit: Int) async throws -> [EntryRow] {
        let stamp = ISO8601DateFormatter()
        stamp.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var parts: [String] = []
        var binds: [SQLiteData] = []
        let wanted = SQLiteData.int(Int64(offset + limit))
        if filter.decision != "event" {
            // The same expressions as the partial indexes of schema version 4.
            var conditions = ["json_extract(record, '$.decision') IN ('granted', 'denied')"]
            if let door = filter.door {
                conditions.append("json_extract(record, '$.terminal_id') = ?")
                binds.append(.text(door))
            }
            if let user = filter.user {
                conditions.append("json_extract(record, '$.user') = ?")
                binds.append(.text(user))
            }
            if let decision = filter.decision {
                conditions.append("json_extract(record, '$.decision') = ?")
                binds.append(.text(decision))
            }
            if let from = filter.from {
                conditions.append("at >= ?")
                binds.append(.text(stamp.string(from: from)))
            }
            if let until = filter.until {
                conditions.append("at < ?")
                binds.append(.text(stamp.string(from: until)))
            }
            binds.append(wanted)
            parts.append(
                """
                SELECT * FROM (SELECT (julianday(at) - 2440587.5) * 86400.0 AS t, json_extract(record, '$.terminal_id') AS door,
                    json_extract(record, '$.user') AS user, json_extract(record, '$.decision') AS decision, json_extract(record, '$.reason') AS detail,
                    0 AS source, id AS tiebreak
                FROM kioskpad_audit WHERE \(conditions.joined(separator: " AND ")) ORDER BY id DESC LIMIT ?)
                """)
        }
        if filter.decision == nil || filter.decision == "event" {
            // Of the door events only a duress record names a user.
            let types = (filter.user == nil ? EntryRow.eventTypes : ["duress"]).map { "'\($0)'" }.joined(separator: ", ")
            var conditions = ["type IN (\(types))"]
            if let door = filter.door {
                conditions.append("terminal_id = ?")
                binds.append(.text(door))
            }
            if let user = filter.user {
                conditions.append("json_extract(record, '$.user') = ?")
                binds.append(.text(user))
            }
            if let from = filter.from {
                conditions.append("at >= ?")
                binds.append(.float(from.timeIntervalSince1970))
            }
            if let until = filter.until {
                conditions.append("at < ?")
                binds.append(.float(until.timeIntervalSince1970))
            }
            binds.append(wanted)
            parts.append(
                """
                SELECT * FROM (SELECT at AS t, terminal_id AS door, json_extract(record, '$.user') AS user, 'event' AS decision, type AS detail,
                    1 AS source, seq AS tiebreak
                FROM kioskpad_events WHERE \(conditions.joined(separator: " AND ")) ORDER BY at DESC LIMIT ?)
                """)
        }
        binds += [.int(Int64(limit)), .int(Int64(offset))]
        // Both sources merged newest first inside SQLite: only the page's rows come out.
        let query =
            "SELECT t, door, user, decision, detail FROM (\(parts.joined(separator: " UNION ALL "))) ORDER BY t DESC, source, tiebreak DESC LIMIT ? OFFSET ?"
        let values = binds
        return try await database.read { try await $0.execute(query, values) }.map { row in
            EntryRow(
                time: Date(timeIntervalSince1970: row.columns[0].data.double ?? 0), door: row.columns[1].data.string ?? "",
                user: row.columns[2].data.string, decision: row.columns[3].data.string ?? "", detail: row.columns[4].data.string ?? "")
        }
    }
}
