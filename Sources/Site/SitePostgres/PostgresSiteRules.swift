import Foundation
import KioskPadAccess
import KioskPadCore
import Logging
import PostgresNIO
import SiteCore

/// The site's access rules in PostgreSQL, inside one transaction (see the SQLite store's
/// twin for the tables); every value is a bound parameter.
struct PostgresSiteRulesTransaction: SiteRulesTransaction {
    let connection: PostgresConnection
    let logger: Logger

    func readSite() async throws -> SiteRules {
        var zone: String?
        for try await value in try await connection.query("SELECT value FROM kioskpad_site WHERE key = 'time_zone'", logger: logger).decode(String.self) {
            zone = value
        }
        var schedules: [String: String] = [:]
        for try await (name, spec) in try await connection.query("SELECT name, spec FROM kioskpad_schedules", logger: logger).decode((String, String).self) {
            schedules[name] = spec
        }
        var rules: [String: AccessRule] = [:]
        for try await (user, rule) in try await connection.query("SELECT user_name, rule FROM kioskpad_access", logger: logger).decode((String, String).self) {
            rules[user] = try Self.rule(rule)
        }
        return SiteRules(timeZone: zone, schedules: schedules, rules: rules)
    }

    func userExists(_ name: String) async throws -> Bool {
        try await connection.query("SELECT 1 FROM kioskpad_users WHERE name = \(name) LIMIT 1", logger: logger).count() > 0
    }

    func writeTimeZone(_ id: String) async throws {
        try await connection.query(
            "INSERT INTO kioskpad_site (key, value) VALUES ('time_zone', \(id)) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value", logger: logger)
    }

    func writeSchedule(name: String, spec: String?) async throws {
        guard let spec else {
            try await connection.query("DELETE FROM kioskpad_schedules WHERE name = \(name)", logger: logger)
            return
        }
        try await connection.query(
            "INSERT INTO kioskpad_schedules (name, spec) VALUES (\(name), \(spec)) ON CONFLICT (name) DO UPDATE SET spec = EXCLUDED.spec", logger: logger)
    }

    func writeRule(user: String, rule: AccessRule) async throws {
        guard !rule.isDefault else {
            try await connection.query("DELETE FROM kioskpad_access WHERE user_name = \(user)", logger: logger)
            return
        }
        let text = rule.fields.joined(separator: " ")
        try await connection.query(
            """
            INSERT INTO kioskpad_access (user_name, rule, schedule) VALUES (\(user), \(text), \(rule.schedule))
            ON CONFLICT (user_name) DO UPDATE SET rule = EXCLUDED.rule, schedule = EXCLUDED.schedule
            """, logger: logger)
    }

    func records() async throws -> [UserRecord] {
        try await VerifierQueries(connection: connection, logger: logger).allRecords()
    }

    func insert(_ record: UserRecord) async throws {
        let tag = record.lookupTag
        try await connection.query(
            """
            INSERT INTO kioskpad_users (name, kind, hash, lookup_tag, lookup_key_id, totp_secret)
            VALUES (\(record.name), \(record.kind), \(record.pinHash.description), \(tag), \(tag.map(LookupKey.keyID(ofTag:))),
                    \(record.totpSecret.map(TOTP.base32Encode)))
            """, logger: logger)
    }

    func addPIN(name: String, hash: PINHash, tag: String?) async throws -> Bool {
        try await connection.query(
            """
            INSERT INTO kioskpad_users (name, kind, hash, lookup_tag, lookup_key_id)
            VALUES (\(name), 'pin', \(hash.description), \(tag), \(tag.map(LookupKey.keyID(ofTag:))))
            ON CONFLICT (name) WHERE kind = 'pin' DO NOTHING RETURNING 1
            """, logger: logger
        ).count() > 0
    }

    /// `name`'s rule, its schedule's spec and the zone, for an attempt; nil: no such user.
    static func access(user name: String, connection: PostgresConnection, logger: Logger) async throws -> UserAccess? {
        let rows = try await connection.query(
            """
            SELECT EXISTS (SELECT 1 FROM kioskpad_users WHERE name = \(name)),
                   (SELECT rule FROM kioskpad_access WHERE user_name = \(name)),
                   (SELECT s.spec FROM kioskpad_access a JOIN kioskpad_schedules s ON s.name = a.schedule WHERE a.user_name = \(name)),
                   (SELECT value FROM kioskpad_site WHERE key = 'time_zone')
            """, logger: logger)
        for try await (exists, rule, spec, zone) in rows.decode((Bool, String?, String?, String?).self) {
            guard exists else { return nil }
            return UserAccess(ruleText: rule, scheduleSpec: spec, timeZone: zone ?? "UTC")
        }
        return nil
    }

    static func rule(_ text: String) throws -> AccessRule {
        do {
            return try AccessRule(fields: text.split(separator: " "))
        } catch {
            throw PostgresVerifierDatabase.Failure(description: "database: the access rule '\(text)' cannot be read (\(error))")
        }
    }
}
