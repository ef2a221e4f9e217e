import Foundation
import KioskPadAccess
import KioskPadCore
import SQLiteNIO
import SiteCore

/// The site's access rules in SQLite, inside one transaction: `kioskpad_site` (the zone),
/// `kioskpad_schedules`, `kioskpad_access` (one row per user with a rule; the rule as the
/// users file writes it) and the user lines.
struct SQLiteSiteRulesTransaction: SiteRulesTransaction {
    let sql: SQLiteStatements

    func readSite() async throws -> SiteRules {
        let zone = try await sql.execute("SELECT value FROM kioskpad_site WHERE key = 'time_zone'").first.map { try SQLiteRows.text($0, 0) }
        var schedules: [String: String] = [:]
        for row in try await sql.execute("SELECT name, spec FROM kioskpad_schedules") {
            schedules[try SQLiteRows.text(row, 0)] = try SQLiteRows.text(row, 1)
        }
        var rules: [String: AccessRule] = [:]
        for row in try await sql.execute("SELECT user_name, rule FROM kioskpad_access") {
            rules[try SQLiteRows.text(row, 0)] = try SQLiteRows.rule(row, 1)
        }
        return SiteRules(timeZone: zone, schedules: schedules, rules: rules)
    }

    func userExists(_ name: String) async throws -> Bool {
        try await sql.execute("SELECT 1 FROM kioskpad_users WHERE name = ? LIMIT 1", [.text(name)]).count > 0
    }

    func writeTimeZone(_ id: String) async throws {
        try await sql.execute(
            "INSERT INTO kioskpad_site (key, value) VALUES ('time_zone', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [.text(id)])
    }

    func writeSchedule(name: String, spec: String?) async throws {
        guard let spec else {
            try await sql.execute("DELETE FROM kioskpad_schedules WHERE name = ?", [.text(name)])
            return
        }
        try await sql.execute(
            "INSERT INTO kioskpad_schedules (name, spec) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET spec = excluded.spec", [.text(name), .text(spec)])
    }

    func writeRule(user: String, rule: AccessRule) async throws {
        guard !rule.isDefault else {
            try await sql.execute("DELETE FROM kioskpad_access WHERE user_name = ?", [.text(user)])
            return
        }
        try await sql.execute(
            """
            INSERT INTO kioskpad_access (user_name, rule, schedule) VALUES (?, ?, ?)
            ON CONFLICT (user_name) DO UPDATE SET rule = excluded.rule, schedule = excluded.schedule
            """, [.text(user), .text(rule.fields.joined(separator: " ")), rule.schedule.map { .text($0) } ?? .null])
    }

    func records() async throws -> [UserRecord] {
        try SQLiteRows.users(try await sql.execute("SELECT name, kind, hash, lookup_tag, totp_secret FROM kioskpad_users ORDER BY id"))
    }

    func insert(_ record: UserRecord) async throws {
        let tag = record.lookupTag
        try await sql.execute(
            "INSERT INTO kioskpad_users (name, kind, hash, lookup_tag, lookup_key_id, totp_secret) VALUES (?, ?, ?, ?, ?, ?)",
            [
                .text(record.name), .text(record.kind), .text(record.pinHash.description), SQLiteRows.optional(tag),
                SQLiteRows.optional(tag.map(LookupKey.keyID(ofTag:))), SQLiteRows.optional(record.totpSecret.map(TOTP.base32Encode)),
            ])
    }

    func addPIN(name: String, hash: PINHash, tag: String?) async throws -> Bool {
        try await sql.execute(
            """
            INSERT INTO kioskpad_users (name, kind, hash, lookup_tag, lookup_key_id) VALUES (?, 'pin', ?, ?, ?)
            ON CONFLICT (name) WHERE kind = 'pin' DO NOTHING RETURNING 1
            """, [.text(name), .text(hash.description), SQLiteRows.optional(tag), SQLiteRows.optional(tag.map(LookupKey.keyID(ofTag:)))]
        ).count > 0
    }

    /// `name`'s rule, its schedule's spec and the zone, for an attempt; nil: no such user.
    static func access(user name: String, _ sql: SQLiteStatements) async throws -> UserAccess? {
        let rows = try await sql.execute(
            """
            SELECT EXISTS (SELECT 1 FROM kioskpad_users WHERE name = ?1),
                   (SELECT rule FROM kioskpad_access WHERE user_name = ?1),
                   (SELECT s.spec FROM kioskpad_access a JOIN kioskpad_schedules s ON s.name = a.schedule WHERE a.user_name = ?1),
                   (SELECT value FROM kioskpad_site WHERE key = 'time_zone')
            """, [.text(name)])
        guard let row = rows.first, try SQLiteRows.integer(row, 0) != 0 else { return nil }
        return UserAccess(ruleText: row.columns[1].data.string, scheduleSpec: row.columns[2].data.string, timeZone: row.columns[3].data.string ?? "UTC")
    }
}

extension SQLiteRows {
    /// The rule in column `index` (as the users file writes it), or an error naming the column.
    static func rule(_ row: SQLiteRow, _ index: Int) throws -> AccessRule {
        let text = try SQLiteRows.text(row, index)
        do {
            return try AccessRule(fields: text.split(separator: " "))
        } catch {
            throw SQLiteVerifierDatabase.Failure(description: "database: the access rule '\(text)' cannot be read (\(error))")
        }
    }

    static func optional(_ value: String?) -> SQLiteData {
        value.map { .text($0) } ?? .null
    }
}
