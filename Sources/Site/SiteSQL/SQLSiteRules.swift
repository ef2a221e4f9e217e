import Foundation
import KioskPadAccess
import KioskPadCore
import SQLKit
import SiteCore

/// The site's access rules inside one transaction: `kioskpad_site` (the zone),
/// `kioskpad_schedules`, `kioskpad_access` (one row per user with a rule; the rule as the
/// users file writes it) and the user lines.
struct SQLSiteRulesTransaction: SiteRulesTransaction {
    let sql: any SQLDatabase

    func readSite() async throws -> SiteRules {
        let zone = try await sql.raw("SELECT value FROM kioskpad_site WHERE key = 'time_zone'").first().map { try $0.text("value") }
        var schedules: [String: String] = [:]
        for row in try await sql.raw("SELECT name, spec FROM kioskpad_schedules").all() {
            schedules[try row.text("name")] = try row.text("spec")
        }
        var rules: [String: AccessRule] = [:]
        for row in try await sql.raw("SELECT user_name, rule FROM kioskpad_access").all() {
            rules[try row.text("user_name")] = try row.accessRule("rule")
        }
        var site = SiteRules(timeZone: zone, schedules: schedules, rules: rules, holidays: try await holidays(), modes: try await modes())
        site.modeCheck = try await sql.raw("SELECT value FROM kioskpad_site WHERE key = 'mode_check_s'").first().flatMap { Int(try $0.text("value")) }
        site.unlockSchedules = try await unlockSchedules()
        site.cardAndPIN = try await cardAndPINRules()
        site.access = try await accessLevels()
        return site
    }

    /// Every door group, access level and user group (a definition that does not parse is
    /// left out: a name it leaves undefined gives nothing).
    func accessLevels() async throws -> AccessLevels {
        var tree = AccessLevels()
        for row in try await sql.raw("SELECT kind, name, definition FROM kioskpad_access_groups").all() {
            let (name, definition) = (try row.text("name"), try row.text("definition"))
            switch try row.text("kind") {
            case "door_group": tree.doorGroups[name] = try? DoorGroup(text: definition)
            case "level": tree.levels[name] = try? AccessLevel(text: definition)
            default: tree.userGroups[name] = try? UserGroup(text: definition)
            }
        }
        return tree
    }

    func writeAccessGroup(kind: AccessGroupKind, name: String, definition: [String]?) async throws {
        guard let definition else {
            try await sql.raw("DELETE FROM kioskpad_access_groups WHERE kind = \(bind: kind.rawValue) AND name = \(bind: name)").run()
            return
        }
        try await sql.raw(
            """
            INSERT INTO kioskpad_access_groups (kind, name, definition) VALUES (\(bind: kind.rawValue), \(bind: name), \(bind: definition.joined(separator: " ")))
            ON CONFLICT (kind, name) DO UPDATE SET definition = excluded.definition
            """
        ).run()
    }

    func userExists(_ name: String) async throws -> Bool {
        try await sql.raw("SELECT 1 FROM kioskpad_users WHERE name = \(bind: name) LIMIT 1").first() != nil
    }

    func writeTimeZone(_ id: String) async throws {
        try await sql.raw(
            "INSERT INTO kioskpad_site (key, value) VALUES ('time_zone', \(bind: id)) ON CONFLICT (key) DO UPDATE SET value = excluded.value"
        ).run()
    }

    func writeSchedule(name: String, spec: String?) async throws {
        guard let spec else {
            try await sql.raw("DELETE FROM kioskpad_schedules WHERE name = \(bind: name)").run()
            return
        }
        try await sql.raw(
            "INSERT INTO kioskpad_schedules (name, spec) VALUES (\(bind: name), \(bind: spec)) ON CONFLICT (name) DO UPDATE SET spec = excluded.spec"
        ).run()
    }

    func writeRule(user: String, rule: AccessRule) async throws {
        guard !rule.isDefault else {
            try await sql.raw("DELETE FROM kioskpad_access WHERE user_name = \(bind: user)").run()
            return
        }
        try await sql.raw(
            """
            INSERT INTO kioskpad_access (user_name, rule, schedule) VALUES (\(bind: user), \(bind: rule.text), \(bind: rule.schedule))
            ON CONFLICT (user_name) DO UPDATE SET rule = excluded.rule, schedule = excluded.schedule
            """
        ).run()
    }

    func records() async throws -> [UserRecord] {
        try await sql.raw("SELECT \(unsafeRaw: userColumns) FROM kioskpad_users ORDER BY id").all().map { try $0.userRecord() }
    }

    func insert(_ record: UserRecord) async throws {
        try await sql.raw(insertUserLine(record)).run()
    }

    func addPIN(name: String, hash: PINHash, tag: String?) async throws -> Bool {
        let line = UserRecord(name: name, pinHash: hash, lookupTag: tag)
        return try await sql.raw(insertUserLine(line, then: "ON CONFLICT (name) WHERE kind = 'pin' DO NOTHING RETURNING 1")).all().count > 0
    }

    /// `name`'s rule, its schedule's spec, the zone and the mode `door` follows, for an
    /// attempt at `instant` (with the holidays near it when the rule has a schedule); nil: no such user.
    func access(user name: String, door: String, at instant: Date) async throws -> UserAccess? {
        let row = try await sql.raw(
            """
            SELECT (SELECT count(*) FROM (SELECT 1 FROM kioskpad_users WHERE name = \(bind: name) LIMIT 1) AS found) AS known,
                   (SELECT rule FROM kioskpad_access WHERE user_name = \(bind: name)) AS rule,
                   (SELECT s.spec FROM kioskpad_access a JOIN kioskpad_schedules s ON s.name = a.schedule WHERE a.user_name = \(bind: name)) AS spec,
                   \(Self.zoneAndMode(door))
            """
        ).first()
        guard let row, try row.integer("known") > 0 else { return nil }
        return try await access(ruleText: try row.optionalText("rule"), scheduleSpec: try row.optionalText("spec"), row, at: instant)
    }

    /// A visitor pass's rule as ``access(user:door:at:)`` reads a user's, and whether its
    /// host is a user whose rule does not disable them.
    func access(pass: IssuedVisitorPass, door: String, at instant: Date) async throws -> (access: UserAccess, hostActive: Bool) {
        let schedule = try AccessRule(text: pass.ruleText).schedule
        let row = try await sql.raw(
            """
            SELECT (SELECT count(*) FROM (SELECT 1 FROM kioskpad_users WHERE name = \(bind: pass.host) LIMIT 1) AS found) AS host,
                   (SELECT rule FROM kioskpad_access WHERE user_name = \(bind: pass.host)) AS host_rule,
                   (SELECT spec FROM kioskpad_schedules WHERE name = \(bind: schedule ?? "")) AS spec,
                   \(Self.zoneAndMode(door))
            """
        ).first()
        guard let row else { throw SiteStoreFailure("database: the visitor pass's host could not be read") }
        let hostRule = try row.optionalText("host_rule").map { try AccessRule(text: $0) }
        // A host past their own validity hosts nobody (issue 78): their passes stop with them.
        let zone = try row.optionalText("zone").flatMap { TimeZone(identifier: $0) } ?? .current
        let hostExpired = hostRule?.validUntil.map { SiteTime(instant, in: zone) >= $0.end } ?? false
        let hostActive = try row.integer("host") > 0 && hostRule?.disabled != true && !hostExpired
        // A schedule removed since leaves no spec, as for a user: the evaluator refuses its doors.
        return (try await access(ruleText: pass.ruleText, scheduleSpec: try row.optionalText("spec"), row, at: instant), hostActive)
    }

    /// The columns `zone` (the site's) and `mode` (the one `door` follows) of an access read.
    private static func zoneAndMode(_ door: String) -> SQLQueryString {
        """
        (SELECT value FROM kioskpad_site WHERE key = 'time_zone') AS zone,
        (SELECT mode FROM kioskpad_door_modes WHERE scope IN (\(bind: door), '*') ORDER BY scope = '*' LIMIT 1) AS mode
        """
    }

    /// `ruleText` with the zone and mode of `row` (``zoneAndMode(_:)``), the tree (for a rule
    /// with levels or groups) and the holidays near `instant` (for a rule with a schedule).
    private func access(ruleText: String?, scheduleSpec spec: String?, _ row: any SQLRow, at instant: Date) async throws -> UserAccess {
        // A rule with levels or groups: the tree and every schedule, to compile it for the door.
        var levels: AccessLevels?
        var specs: [String: String] = [:]
        var version: Int64?
        if let ruleText, ruleText.contains("levels=") || ruleText.contains("groups=") {
            version = try await sql.raw("SELECT version FROM kioskpad_replica WHERE id = 1").first().map { try $0.integer("version") }
            levels = try await accessLevels()
            for row in try await sql.raw("SELECT name, spec FROM kioskpad_schedules").all() { specs[try row.text("name")] = try row.text("spec") }
        }
        return UserAccess(
            ruleText: ruleText, scheduleSpec: spec, timeZone: try row.optionalText("zone") ?? "UTC",
            mode: try row.optionalText("mode").flatMap(DoorMode.init(rawValue:)) ?? .normal,
            holidays: spec == nil && specs.isEmpty ? [] : try await holidays(near: instant), levels: levels, scheduleSpecs: specs,
            treeVersion: version)
    }
}

/// The `UPDATE` that replaces `name`'s PIN (its hash, lookup tag and the tag's key id, and
/// its replica tag: the old PIN's never stays with the new hash; the TOTP secret stays);
/// `RETURNING 1` when the user has a PIN line.
func updatePINLine(name: String, hash: PINHash, tag: String?, replicaTag: String? = nil) -> SQLQueryString {
    """
    UPDATE kioskpad_users SET hash = \(bind: hash.description), lookup_tag = \(bind: tag), lookup_key_id = \(bind: tag.map(LookupKey.keyID(ofTag:))),
        replica_tag = \(bind: replicaTag)
    WHERE name = \(bind: name) AND kind = 'pin' RETURNING 1
    """
}

/// The `INSERT` of one user line: its kind, hash, lookup tag with the tag's key id, and TOTP
/// secret; `then` follows it (a conflict clause, `RETURNING 1`).
func insertUserLine(_ record: UserRecord, then: String = "") -> SQLQueryString {
    let (tag, secret) = (record.lookupTag, record.totpSecret.map(TOTP.base32Encode))
    return """
        INSERT INTO kioskpad_users (name, kind, hash, lookup_tag, lookup_key_id, totp_secret) VALUES (\(bind: record.name), \(bind: record.kind),
            \(bind: record.pinHash.description), \(bind: tag), \(bind: tag.map(LookupKey.keyID(ofTag:))), \(bind: secret)) \(unsafeRaw: then)
        """
}
