import Foundation
import KioskPadAccess
import KioskPadCore
import SQLKit
import SiteCore

/// The users, codes, doors and lockouts in a ``SiteDatabase`` (`kioskpad verifier
/// user|code|terminal|lockout|import|export`): one row per PIN, duress PIN or card, as a
/// users file has one line each. Each change is one transaction, so a running server sees it
/// at its next attempt, and two commands at once both land (the second waits for the first).
public struct SQLUserDirectory: VerifierAdministration {
    public let database: any SiteDatabase
    /// The database as messages name it: the SQLite path, or the PostgreSQL URL without its password.
    public let location: String
    /// The configuration key that names it (`server.sqlite.path`, `server.postgres.url`).
    public let configKey: String

    public init(database: any SiteDatabase, location: String, configKey: String) {
        self.database = database
        self.location = location
        self.configKey = configKey
    }

    public func add(name: String, hash: PINHash, tag: String?) async throws {
        let inserted = try await database.write { try await SQLSiteRulesTransaction(sql: $0).addPIN(name: name, hash: hash, tag: tag) }
        guard inserted else { throw UserEditError.alreadyThere(name, in: location) }
    }

    public func remove(name: String) async throws -> Int {
        let removed = try await database.write { sql in
            let lines = try await sql.raw("DELETE FROM kioskpad_users WHERE name = \(bind: name) RETURNING 1").all().count
            try await sql.raw("DELETE FROM kioskpad_access WHERE user_name = \(bind: name)").run()
            // What was issued to or hosted by this user ends with them, so a new user given the
            // same name later inherits no code and no visitor (issue 78).
            let at = Int64(Date().timeIntervalSince1970)
            try await sql.raw("UPDATE kioskpad_codes SET used_at = \(bind: at) WHERE user_name = \(bind: name) AND used_at IS NULL").run()
            try await sql.raw("UPDATE kioskpad_visitor_passes SET revoked_at = \(bind: at) WHERE host = \(bind: name) AND revoked_at IS NULL").run()
            return lines
        }
        guard removed > 0 else { throw UserEditError(description: "no user '\(name)' in \(location)") }
        return removed
    }

    public func rename(name: String, to newName: String) async throws {
        guard UsersFile.isValidName(newName) else {
            throw UserEditError(description: "new name '\(newName)' must be 1-64 of letters, digits, '.', '_' or '-'")
        }
        let (location, locks) = (self.location, database.dialect.siteEditLocks)
        try await database.write { sql in
            // The site's edit lock, as every user and rule edit takes it: the checks hold until commit.
            for lock in locks { try await sql.raw(lock).run() }
            guard try await sql.raw("SELECT 1 FROM kioskpad_users WHERE name = \(bind: name)").first() != nil else {
                throw UserEditError(description: "no user '\(name)' in \(location)")
            }
            guard try await sql.raw("SELECT 1 FROM kioskpad_users WHERE name = \(bind: newName)").first() == nil else {
                throw UserEditError.alreadyThere(newName, in: location)
            }
            try await sql.raw("UPDATE kioskpad_users SET name = \(bind: newName) WHERE name = \(bind: name)").run()
            try await sql.raw("UPDATE kioskpad_access SET user_name = \(bind: newName) WHERE user_name = \(bind: name)").run()
            try await sql.raw("UPDATE kioskpad_codes SET user_name = \(bind: newName) WHERE user_name = \(bind: name)").run()
            try await sql.raw("UPDATE kioskpad_visitor_passes SET host = \(bind: newName) WHERE host = \(bind: name)").run()
        }
    }

    public func setPIN(name: String, hash: PINHash, tag: String?) async throws {
        let changed = try await database.changed(updatePINLine(name: name, hash: hash, tag: tag))
        guard changed > 0 else { throw noPIN(name) }
    }

    public func setDuress(name: String, hash: PINHash, tag: String?) async throws {
        let (error, forUpdate) = (noPIN(name), database.dialect.forUpdate)
        try await database.write { sql in
            guard try await sql.raw("SELECT 1 FROM kioskpad_users WHERE name = \(bind: name) AND kind = 'pin'\(unsafeRaw: forUpdate)").first() != nil
            else { throw error }
            try await sql.raw("DELETE FROM kioskpad_users WHERE name = \(bind: name) AND kind = 'duress'").run()
            try await sql.raw(insertUserLine(UserRecord(name: name, pinHash: hash, duress: true, lookupTag: tag))).run()
        }
    }

    public func addCard(name: String, hash: PINHash, tag: String?) async throws {
        _ = try await database.changed(insertUserLine(UserRecord(name: name, pinHash: hash, card: true, lookupTag: tag), then: "RETURNING 1"))
    }

    /// Checks the hash of each of `name`'s cards against `value`; deletes the ones that match.
    public func removeCard(name: String, value: SecretDigits) async throws {
        let cards = try await database.read { sql in
            try await sql.raw("SELECT id, hash FROM kioskpad_users WHERE name = \(bind: name) AND kind = 'card'").all()
                .map { (id: try $0.integer("id"), hash: try $0.text("hash")) }
        }
        // The hashes on the hashing pool's console lane (an administrator's edit).
        let ids = try await HashingPool.shared.run(.console) { cards.filter { (try? PINHash(parsing: $0.hash))?.matches(value) == true }.map(\.id) }
        guard !ids.isEmpty else { throw UserEditError(description: "user '\(name)' has no card with that number in \(location)") }
        _ = try await database.changed("DELETE FROM kioskpad_users WHERE id IN (\(binds: ids)) RETURNING 1")
    }

    public func setTOTP(name: String, secret: [UInt8]) async throws {
        let changed = try await database.changed(
            "UPDATE kioskpad_users SET totp_secret = \(bind: TOTP.base32Encode(secret)), totp_last_step = NULL WHERE name = \(bind: name) AND kind = 'pin' RETURNING 1"
        )
        guard changed > 0 else { throw noPIN(name) }
    }

    public func list() async throws -> [UserSummary] {
        try await database.read { sql in
            try await sql.raw(
                """
                SELECT name, count(*) FILTER (WHERE kind = 'pin') AS pins, count(*) FILTER (WHERE totp_secret IS NOT NULL) AS totps,
                    count(*) FILTER (WHERE kind = 'duress') AS duress, count(*) FILTER (WHERE kind = 'card') AS cards
                FROM kioskpad_users GROUP BY name ORDER BY min(id)
                """
            ).all()
        }.map { row in
            UserSummary(
                name: try row.text("name"), hasPIN: try row.integer("pins") > 0, hasTOTP: try row.integer("totps") > 0,
                hasDuressPIN: try row.integer("duress") > 0, cards: Int(try row.integer("cards")))
        }
    }

    public func usersPage(after: String?, search: String?, limit: Int) async throws -> [UserListing] {
        let order = database.dialect.byteOrder
        var conditions: [SQLQueryString] = []
        if let after { conditions.append("u.name\(unsafeRaw: order) > \(bind: after)") }
        if let search, !search.isEmpty {
            let pattern =
                "%"
                + search.lowercased().replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
                .replacingOccurrences(of: "_", with: "\\_") + "%"
            conditions.append("lower(u.name) LIKE \(bind: pattern) ESCAPE '\\'")
        }
        return try await listings(where: conditions, order: order, limit: limit)
    }

    public func userListing(name: String) async throws -> UserListing? {
        try await listings(where: ["u.name = \(bind: name)"], order: "", limit: 1).first
    }

    /// Users with their rule, those matching every condition, by name, up to `limit`.
    private func listings(where conditions: [SQLQueryString], order: String, limit: Int) async throws -> [UserListing] {
        let filter: SQLQueryString = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        return try await database.read { sql in
            try await sql.raw(
                """
                SELECT u.name, count(*) FILTER (WHERE u.kind = 'pin') AS pins, count(*) FILTER (WHERE u.totp_secret IS NOT NULL) AS totps,
                    count(*) FILTER (WHERE u.kind = 'duress') AS duress, count(*) FILTER (WHERE u.kind = 'card') AS cards,
                    (SELECT a.rule FROM kioskpad_access a WHERE a.user_name = u.name) AS rule
                FROM kioskpad_users u \(filter) GROUP BY u.name ORDER BY u.name\(unsafeRaw: order) LIMIT \(bind: Int64(limit))
                """
            ).all()
        }.map { row in
            UserListing(
                user: UserSummary(
                    name: try row.text("name"), hasPIN: try row.integer("pins") > 0, hasTOTP: try row.integer("totps") > 0,
                    hasDuressPIN: try row.integer("duress") > 0, cards: Int(try row.integer("cards"))),
                rule: try row.decodeNil(column: "rule") ? AccessRule() : try row.accessRule("rule"))
        }
    }

    public func issueCode(user: String, hash: PINHash, lookupTag: String?, expires: Date, door: String?) async throws {
        try await issueCode(user: user, hash: hash, lookupTag: lookupTag, expires: expires, door: door, purpose: "entry")
    }

    public func issueEnrolmentCode(user: String, hash: PINHash, lookupTag: String?, expires: Date) async throws {
        try await issueCode(user: user, hash: hash, lookupTag: lookupTag, expires: expires, door: nil, purpose: "enrol")
    }

    private func issueCode(user: String, hash: PINHash, lookupTag: String?, expires: Date, door: String?, purpose: String) async throws {
        let issued = try await database.write { sql in
            if let lookupTag, try await Self.tagInUse(sql, lookupTag) { throw CodeTagInUse() }
            return try await sql.raw(
                """
                INSERT INTO kioskpad_codes (user_name, hash, expires_at, door, purpose, lookup_tag, lookup_key_id)
                SELECT \(bind: user), \(bind: hash.description), \(bind: Int64(expires.timeIntervalSince1970)), \(bind: door), \(bind: purpose),
                    \(bind: lookupTag), \(bind: lookupTag.map(LookupKey.keyID(ofTag:)))
                WHERE EXISTS (SELECT 1 FROM kioskpad_users WHERE name = \(bind: user)) RETURNING 1
                """
            ).all().count
        }
        guard issued > 0 else { throw UserEditError(description: "no user '\(user)' in \(location) (see `kioskpad verifier user list`)") }
    }

    /// True when a one-time or enrolment code not used, or a visitor pass not revoked nor used
    /// up, has lookup tag `tag`: the same digits would match both, so new ones are drawn.
    static func tagInUse(_ sql: any SQLDatabase, _ tag: String) async throws -> Bool {
        try await sql.raw(
            """
            SELECT 1 FROM kioskpad_codes WHERE lookup_tag = \(bind: tag) AND used_at IS NULL
            UNION ALL SELECT 1 FROM kioskpad_visitor_passes
            WHERE lookup_tag = \(bind: tag) AND revoked_at IS NULL AND (max_uses IS NULL OR uses < max_uses)
            """
        ).first() != nil
    }

    public func editSite<R: Sendable>(_ body: @escaping @Sendable (any SiteRulesTransaction) async throws -> R) async throws -> R {
        let dialect = database.dialect
        return try await database.write { sql in
            for lock in dialect.siteEditLocks { try await sql.raw(lock).run() }
            return try await body(SQLSiteRulesTransaction(sql: sql))
        }
    }

    public func addDoor(terminalID: String, secret: WebhookSecret) async throws {
        let added = try await database.changed(
            "INSERT INTO kioskpad_doors (terminal_id, secret) VALUES (\(bind: terminalID), \(bind: secret.text)) ON CONFLICT (terminal_id) DO NOTHING RETURNING 1"
        )
        guard added > 0 else {
            throw UserEditError(
                description: "door '\(terminalID)' has its own secret already; `kioskpad verifier terminal remove \(terminalID)` revokes it first")
        }
    }

    public func doors() async throws -> [DoorIdentity] {
        let created = database.dialect.createdText("created_at")
        return try await database.read { sql in
            try await sql.raw(
                "SELECT terminal_id, \(unsafeRaw: created), CASE WHEN next_secret IS NULL THEN 0 ELSE 1 END AS rotating, adopted_at, retired_at FROM kioskpad_doors ORDER BY terminal_id"
            ).all()
        }.map { row in
            let standing: DoorIdentity.Standing =
                try row.optionalInteger("retired_at") != nil
                ? .retired : try row.integer("rotating") == 1 ? .rotating : try row.optionalInteger("adopted_at") != nil ? .adopted : .handGiven
            return DoorIdentity(terminalID: try row.text("terminal_id"), createdAt: try row.text("created_at"), standing: standing)
        }
    }

    public func removeDoor(terminalID: String) async throws -> Bool {
        try await database.write { sql in
            let retired = try await sql.raw("SELECT retired_at FROM kioskpad_doors WHERE terminal_id = \(bind: terminalID)").first()?
                .optionalInteger("retired_at")
            guard retired == nil else {
                throw UserEditError(description: "door '\(terminalID)' is retired; a retired door's name stays refused, so no terminal can sign as it")
            }
            return try await sql.raw("DELETE FROM kioskpad_doors WHERE terminal_id = \(bind: terminalID) RETURNING 1").all().count > 0
        }
    }

    public func startRotation(terminalID: String, next: WebhookSecret, deadline: Date) async throws {
        try await database.write { sql in
            guard
                let row = try await sql.raw("SELECT next_secret, adopted_at, retired_at FROM kioskpad_doors WHERE terminal_id = \(bind: terminalID)")
                    .first()
            else {
                throw UserEditError(description: "door '\(terminalID)' has no secret of its own (see `kioskpad verifier terminal list`)", kind: .notFound)
            }
            if try row.optionalInteger("retired_at") != nil { throw UserEditError(description: "door '\(terminalID)' is retired", kind: .conflict) }
            guard try row.optionalInteger("adopted_at") != nil else {
                throw UserEditError(
                    description:
                        "door '\(terminalID)' was given its secret by hand (verifier terminal add) and cannot pick up a new one by itself: adopt it (kioskpad pair) or give it a new secret by hand",
                    kind: .conflict)
            }
            guard try row.optionalText("next_secret") == nil else {
                throw UserEditError(
                    description: "door '\(terminalID)' has a rotation waiting already; it finishes when the door next checks in", kind: .conflict)
            }
            try await sql.raw(
                """
                UPDATE kioskpad_doors SET next_secret = \(bind: next.text), rotation_deadline = \(bind: Int64(deadline.timeIntervalSince1970))
                WHERE terminal_id = \(bind: terminalID)
                """
            ).run()
        }
    }

    public func retireDoor(terminalID: String, now: Date) async throws {
        let at = Int64(now.timeIntervalSince1970)
        try await database.write { sql in
            let row = try await sql.raw("SELECT retired_at FROM kioskpad_doors WHERE terminal_id = \(bind: terminalID)").first()
            if let row {
                guard try row.optionalInteger("retired_at") == nil else {
                    throw UserEditError(description: "door '\(terminalID)' is retired already", kind: .conflict)
                }
                try await sql.raw(
                    "UPDATE kioskpad_doors SET retired_at = \(bind: at), next_secret = NULL, previous_secret = NULL WHERE terminal_id = \(bind: terminalID)"
                ).run()
            } else {
                // A door that signed with the site secret: a row of its own now refuses that too.
                try await sql.raw(
                    "INSERT INTO kioskpad_doors (terminal_id, secret, retired_at) VALUES (\(bind: terminalID), \(bind: WebhookSecret.generate().text), \(bind: at))"
                ).run()
            }
            try await sql.raw("DELETE FROM kioskpad_alert_acks WHERE terminal_id = \(bind: terminalID)").run()
        }
    }

    public func lockouts(policy: LockoutPolicy) async throws -> [TerminalLockout] {
        try await database.read { sql in
            try await sql.raw("SELECT terminal_id, failures, streak, locked_until FROM kioskpad_lockout ORDER BY terminal_id").all()
        }.map { TerminalLockout(terminal: try $0.text("terminal_id"), tracker: try $0.lockoutTracker(policy: policy)) }
    }

    public func clearLockout(terminal: String) async throws -> Bool {
        try await database.changed("DELETE FROM kioskpad_lockout WHERE terminal_id = \(bind: terminal) RETURNING 1") > 0
    }

    public func records() async throws -> [UserRecord] {
        try await database.read { try await SQLSiteRulesTransaction(sql: $0).records() }
    }

    public func auditRecords(last count: Int) async throws -> [String] {
        let record = database.dialect.jsonText("record")
        return try await database.read { sql in
            try await sql.raw(
                "SELECT \(unsafeRaw: record) FROM (SELECT id, record FROM kioskpad_audit ORDER BY id DESC LIMIT \(bind: Int64(count))) AS newest ORDER BY id"
            ).all()
        }.map { try $0.text("record") }
    }

    private func noPIN(_ name: String) -> UserEditError {
        UserEditError(description: "no user '\(name)' with a PIN in \(location)")
    }
}
