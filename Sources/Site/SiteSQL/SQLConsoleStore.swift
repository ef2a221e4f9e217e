import Foundation
import KioskPadAccess
import KioskPadCore
import SQLKit
import SiteCore

/// The site console's administrators, sessions, acknowledgements and "who entered" in a
/// ``SiteDatabase`` (schema version 4 and later).
public struct SQLConsoleStore: ConsoleStore {
    public let database: any SiteDatabase

    public init(database: any SiteDatabase) {
        self.database = database
    }

    public func addAdmin(name: String, hash: PINHash, role: SiteRole, doorGroups: [String]?) async throws -> Bool {
        try await database.changed(
            """
            INSERT INTO kioskpad_admins (name, hash, role, door_groups)
            VALUES (\(bind: name), \(bind: hash.description), \(bind: role.name), \(bind: doorGroups?.joined(separator: ",")))
            ON CONFLICT (name) DO NOTHING RETURNING 1
            """) > 0
    }

    public func setAdminRole(name: String, role: SiteRole, doorGroups: [String]?) async throws -> Bool {
        try await database.changed(
            """
            UPDATE kioskpad_admins SET role = \(bind: role.name), door_groups = \(bind: doorGroups?.joined(separator: ","))
            WHERE name = \(bind: name) RETURNING 1
            """) > 0
    }

    public func signInFromProvider(name: String, provider: String, role: SiteRole, doorGroups: [String]?, unusable: PINHash) async throws -> Bool {
        // One statement: made, or updated only when the row is this provider's (a local
        // account of the same name is left as it is, and nothing is returned).
        try await database.changed(
            """
            INSERT INTO kioskpad_admins (name, hash, role, door_groups, provider)
            VALUES (\(bind: name), \(bind: unusable.description), \(bind: role.name), \(bind: doorGroups?.joined(separator: ",")), \(bind: provider))
            ON CONFLICT (name) DO UPDATE SET role = excluded.role, door_groups = excluded.door_groups
            WHERE kioskpad_admins.provider = excluded.provider RETURNING 1
            """) > 0
    }

    /// A row's `door_groups` (NULL: every door).
    static func doorGroups(_ row: any SQLRow) throws -> [String]? {
        try row.optionalText("door_groups").map { $0.split(separator: ",").map(String.init) }
    }

    public func adminNames() async throws -> [String] {
        try await database.read { try await $0.raw("SELECT name FROM kioskpad_admins ORDER BY name").all() }.map { try $0.text("name") }
    }

    public func adminRoles() async throws -> [(name: String, role: SiteRole, doorGroups: [String]?, provider: String?)] {
        try await database.read { try await $0.raw("SELECT name, role, door_groups, provider FROM kioskpad_admins ORDER BY name").all() }.map {
            (try $0.text("name"), try Self.role($0), try Self.doorGroups($0), try $0.optionalText("provider"))
        }
    }

    /// A row's `role`; one this build does not know is refused, never read as another.
    static func role(_ row: any SQLRow) throws -> SiteRole {
        let text = try row.text("role")
        guard let role = SiteRole(rawValue: text) else { throw UnknownRole(text: text) }
        return role
    }

    /// A role in the database this build does not know (written by a newer kioskpad).
    struct UnknownRole: Error, CustomStringConvertible {
        let text: String
        var description: String { "role '\(text)' in the database is not one this kioskpad knows; upgrade kioskpad" }
    }

    public func removeAdmin(name: String) async throws -> Bool {
        try await database.write { sql in
            try await sql.raw("DELETE FROM kioskpad_console_sessions WHERE admin_name = \(bind: name)").run()
            return try await sql.raw("DELETE FROM kioskpad_admins WHERE name = \(bind: name) RETURNING 1").all().count > 0
        }
    }

    public func admin(name: String) async throws -> AdminAccount? {
        let row = try await database.read { sql in
            try await sql.raw(
                "SELECT name, hash, failed_logins, locked_until, totp_secret, role, door_groups, provider FROM kioskpad_admins WHERE name = \(bind: name)"
            )
            .first()
        }
        return try row.map { row in
            AdminAccount(
                name: try row.text("name"), hash: try PINHash(parsing: try row.text("hash")), failedLogins: Int(try row.integer("failed_logins")),
                lockedUntil: try row.optionalDouble("locked_until").map { Date(timeIntervalSince1970: $0) },
                totpSecret: try row.optionalText("totp_secret").flatMap(TOTP.base32Decode), role: try Self.role(row), doorGroups: try Self.doorGroups(row),
                provider: try row.optionalText("provider"))
        }
    }

    public func setAdminTOTP(name: String, secret: [UInt8]?) async throws -> Bool {
        try await database.changed(
            "UPDATE kioskpad_admins SET totp_secret = \(bind: secret.map(TOTP.base32Encode)), totp_last_step = NULL WHERE name = \(bind: name) RETURNING 1"
        ) > 0
    }

    public func claimAdminTOTPStep(name: String, step: Int) async throws -> Bool {
        try await database.changed(
            """
            UPDATE kioskpad_admins SET totp_last_step = \(bind: Int64(step))
            WHERE name = \(bind: name) AND (totp_last_step IS NULL OR totp_last_step < \(bind: Int64(step))) RETURNING 1
            """) > 0
    }

    public func noteFailedLogin(name: String, now: Date, limit: Int, lockFor: TimeInterval) async throws {
        _ = try await database.changed(
            """
            UPDATE kioskpad_admins SET failed_logins = failed_logins + 1,
                locked_until = CASE WHEN failed_logins + 1 >= \(bind: Int64(limit)) THEN \(bind: now.timeIntervalSince1970 + lockFor) ELSE locked_until END
            WHERE name = \(bind: name) RETURNING 1
            """)
    }

    public func clearFailedLogins(name: String) async throws {
        _ = try await database.changed("UPDATE kioskpad_admins SET failed_logins = 0, locked_until = NULL WHERE name = \(bind: name) RETURNING 1")
    }

    public func createSession(_ session: ConsoleSession, idle: TimeInterval) async throws {
        let created = session.created.timeIntervalSince1970
        try await database.write { sql in
            // Ended and expired sessions go as new ones come.
            try await sql.raw("DELETE FROM kioskpad_console_sessions WHERE expires_at < \(bind: created) OR idle_until < \(bind: created)").run()
            try await sql.raw(
                """
                INSERT INTO kioskpad_console_sessions (token_hash, admin_name, csrf, created_at, expires_at, idle_until)
                VALUES (\(bind: session.tokenHash), \(bind: session.admin), \(bind: session.csrfToken), \(bind: created),
                    \(bind: session.expires.timeIntervalSince1970), \(bind: created + idle))
                """
            ).run()
        }
    }

    public func session(tokenHash: String, now: Date, idle: TimeInterval) async throws -> ConsoleSession? {
        let at = now.timeIntervalSince1970
        let rows = try await database.writeEach { sql -> (any SQLRow, any SQLRow)? in
            guard
                let session = try await sql.raw(
                    """
                    UPDATE kioskpad_console_sessions SET idle_until = \(bind: at + idle)
                    WHERE token_hash = \(bind: tokenHash) AND expires_at > \(bind: at) AND idle_until > \(bind: at)
                      AND admin_name IN (SELECT name FROM kioskpad_admins)
                    RETURNING token_hash, admin_name, csrf, created_at, expires_at
                    """
                ).first(),
                // The role as it is now, in the same transaction: a changed role holds from this request.
                let admin = try await sql.raw("SELECT role, door_groups, provider FROM kioskpad_admins WHERE name = \(bind: try session.text("admin_name"))")
                    .first()
            else { return nil }
            return (session, admin)
        }
        return try rows.map { row, admin in
            ConsoleSession(
                tokenHash: try row.text("token_hash"), admin: try row.text("admin_name"), csrfToken: try row.text("csrf"),
                created: Date(timeIntervalSince1970: try row.double("created_at")), expires: Date(timeIntervalSince1970: try row.double("expires_at")),
                role: try Self.role(admin), doorGroups: try Self.doorGroups(admin), provider: try admin.optionalText("provider"))
        }
    }

    public func endSession(tokenHash: String) async throws {
        _ = try await database.changed("DELETE FROM kioskpad_console_sessions WHERE token_hash = \(bind: tokenHash) RETURNING 1")
    }

    public func acknowledge(terminal: String, alert: String, admin: String, at: Date) async throws {
        _ = try await database.changed(
            """
            INSERT INTO kioskpad_alert_acks (terminal_id, alert, admin_name, at) VALUES (\(bind: terminal), \(bind: alert), \(bind: admin), \(bind: at.timeIntervalSince1970))
            ON CONFLICT (terminal_id, alert) DO UPDATE SET admin_name = excluded.admin_name, at = excluded.at RETURNING 1
            """)
    }

    public func acknowledgements() async throws -> [AlertAcknowledgement] {
        try await database.read { try await $0.raw("SELECT terminal_id, alert, admin_name, at FROM kioskpad_alert_acks").all() }.map { row in
            AlertAcknowledgement(
                terminal: try row.text("terminal_id"), alert: try row.text("alert"), admin: try row.text("admin_name"),
                at: Date(timeIntervalSince1970: try row.double("at")))
        }
    }

    public func unusedCodes(now: Date) async throws -> [UnusedCode] {
        let seconds = Int64(now.timeIntervalSince1970)
        return try await database.read { sql in
            try await sql.raw(
                "SELECT id, user_name, door, expires_at, purpose FROM kioskpad_codes WHERE used_at IS NULL AND expires_at > \(bind: seconds) ORDER BY id DESC"
            ).all()
        }.map { row in
            var code = UnusedCode(
                id: try row.integer("id"), user: try row.text("user_name"), door: try row.optionalText("door"),
                expires: Date(timeIntervalSince1970: TimeInterval(try row.integer("expires_at"))))
            code.enrolment = try row.text("purpose") == "enrol"
            return code
        }
    }

    public func revokeCode(id: Int64, now: Date) async throws -> Bool {
        let seconds = Int64(now.timeIntervalSince1970)
        return try await database.changed(
            "UPDATE kioskpad_codes SET used_at = \(bind: seconds) WHERE id = \(bind: id) AND used_at IS NULL AND expires_at > \(bind: seconds) RETURNING 1"
        ) > 0
    }

    /// Decisions from the audit table and door events, merged newest first in the database,
    /// so only the page's rows come out. Each part is limited first (in a subquery: SQLite
    /// takes no `ORDER BY` on a member of a `UNION ALL`).
    public func entries(_ filter: EntryFilter, offset: Int, limit: Int) async throws -> [EntryRow] {
        let dialect = database.dialect
        let field = { (key: String) in dialect.jsonField("record", key) }
        let wanted = Int64(offset + limit)
        var parts: [SQLQueryString] = []
        if filter.decision != "event" {
            // The same expressions as the partial indexes of schema version 4. A visitor pass's
            // attempt names no user: its visitor and host instead.
            var conditions: [SQLQueryString] = ["\(unsafeRaw: field("decision")) IN ('granted', 'denied')"]
            if let door = filter.door { conditions.append("\(unsafeRaw: field("terminal_id")) = \(bind: door)") }
            if let within = filter.within { conditions.append(within.isEmpty ? "1 = 0" : "\(unsafeRaw: field("terminal_id")) IN (\(binds: within))") }
            if let user = filter.user { conditions.append("\(unsafeRaw: field("user")) = \(bind: user)") }
            if let decision = filter.decision { conditions.append("\(unsafeRaw: field("decision")) = \(bind: decision)") }
            if let from = filter.from { conditions.append("at >= \(dialect.auditInstant(from))") }
            if let until = filter.until { conditions.append("at < \(dialect.auditInstant(until))") }
            parts.append(
                """
                SELECT * FROM (SELECT \(unsafeRaw: dialect.auditSeconds) AS t, \(unsafeRaw: field("terminal_id")) AS door,
                    COALESCE(\(unsafeRaw: field("user")), 'visitor ' || (\(unsafeRaw: field("visitor"))) || ' (host ' || (\(unsafeRaw: field("host"))) || ')') AS who,
                    \(unsafeRaw: field("decision")) AS decision, \(unsafeRaw: field("reason")) AS detail, 0 AS source, id AS tiebreak
                FROM kioskpad_audit WHERE \(conditions.joined(separator: " AND ")) ORDER BY id DESC LIMIT \(bind: wanted)) AS decided
                """)
        }
        if filter.decision == nil || filter.decision == "event" {
            // Of the door events only a duress record names a user.
            let types = filter.user == nil ? EntryRow.eventTypes : [DoorRecordType.duress.rawValue]
            var conditions: [SQLQueryString] = ["type IN (\(binds: types))"]
            if let door = filter.door { conditions.append("terminal_id = \(bind: door)") }
            if let within = filter.within { conditions.append(within.isEmpty ? "1 = 0" : "terminal_id IN (\(binds: within))") }
            if let user = filter.user { conditions.append("\(unsafeRaw: field("user")) = \(bind: user)") }
            if let from = filter.from { conditions.append("at >= \(bind: from.timeIntervalSince1970)") }
            if let until = filter.until { conditions.append("at < \(bind: until.timeIntervalSince1970)") }
            parts.append(
                """
                SELECT * FROM (SELECT at AS t, terminal_id AS door, \(unsafeRaw: field("user")) AS who, 'event' AS decision, type AS detail,
                    1 AS source, seq AS tiebreak
                FROM kioskpad_events WHERE \(conditions.joined(separator: " AND ")) ORDER BY at DESC LIMIT \(bind: wanted)) AS happened
                """)
        }
        let query: SQLQueryString = """
            SELECT t, door, who, decision, detail FROM (\(parts.joined(separator: " UNION ALL "))) AS merged
            ORDER BY t DESC, source, tiebreak DESC LIMIT \(bind: Int64(limit)) OFFSET \(bind: Int64(offset))
            """
        return try await database.read { try await $0.raw(query).all() }.map { row in
            EntryRow(
                time: Date(timeIntervalSince1970: try row.double("t")), door: try row.optionalText("door") ?? "", user: try row.optionalText("who"),
                decision: try row.optionalText("decision") ?? "", detail: try row.optionalText("detail") ?? "")
        }
    }
}
