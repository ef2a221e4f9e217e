import Foundation
import KioskPadAccess
import KioskPadCore
import SQLiteNIO
import SiteCore

/// The users, codes and lockouts in the verifier's SQLite file (`kioskpad verifier
/// user|code|lockout|import|export`): one row per PIN, duress PIN or card, as a users file
/// has one line each. Each change is one write transaction, so a running server sees it at
/// its next attempt, and two commands at once both land (the second waits for the first).
public struct SQLiteUserDirectory: VerifierAdministration {
    public let database: SQLiteVerifierDatabase
    public var location: String { database.path }
    public var configKey: String { "server.sqlite.path" }

    public init(database: SQLiteVerifierDatabase) {
        self.database = database
    }

    public func add(name: String, hash: PINHash, tag: String?) async throws {
        let inserted = try await database.write { try await SQLiteSiteRulesTransaction(sql: $0).addPIN(name: name, hash: hash, tag: tag) }
        guard inserted else { throw UserEditError.alreadyThere(name, in: location) }
    }

    public func remove(name: String) async throws -> Int {
        let removed = try await database.write { sql in
            let lines = try await sql.execute("DELETE FROM kioskpad_users WHERE name = ? RETURNING 1", [.text(name)]).count
            try await sql.execute("DELETE FROM kioskpad_access WHERE user_name = ?", [.text(name)])
            return lines
        }
        guard removed > 0 else { throw noUser(name) }
        return removed
    }

    public func setPIN(name: String, hash: PINHash, tag: String?) async throws {
        guard
            try await changed(
                "UPDATE kioskpad_users SET hash = ?, lookup_tag = ?, lookup_key_id = ? WHERE name = ? AND kind = 'pin' RETURNING 1",
                [.text(hash.description), SQLiteRows.optional(tag), SQLiteRows.optional(Self.keyID(tag)), .text(name)])
        else { throw noPIN(name) }
    }

    public func setDuress(name: String, hash: PINHash, tag: String?) async throws {
        let error = noPIN(name)
        try await database.write { sql in
            guard try await sql.execute("SELECT 1 FROM kioskpad_users WHERE name = ? AND kind = 'pin'", [.text(name)]).count > 0 else { throw error }
            try await sql.execute("DELETE FROM kioskpad_users WHERE name = ? AND kind = 'duress'", [.text(name)])
            try await sql.execute(
                "INSERT INTO kioskpad_users (name, kind, hash, lookup_tag, lookup_key_id) VALUES (?, 'duress', ?, ?, ?)",
                [.text(name), .text(hash.description), SQLiteRows.optional(tag), SQLiteRows.optional(Self.keyID(tag))])
        }
    }

    public func addCard(name: String, hash: PINHash, tag: String?) async throws {
        _ = try await changed(
            "INSERT INTO kioskpad_users (name, kind, hash, lookup_tag, lookup_key_id) VALUES (?, 'card', ?, ?, ?) RETURNING 1",
            [.text(name), .text(hash.description), SQLiteRows.optional(tag), SQLiteRows.optional(Self.keyID(tag))])
    }

    /// Checks the hash of each of `name`'s cards against `value`; deletes the ones that match.
    public func removeCard(name: String, value: SecretDigits) async throws {
        let rows = try await database.read { sql in
            try await sql.execute("SELECT id, hash FROM kioskpad_users WHERE name = ? AND kind = 'card'", [.text(name)])
        }
        let cards = try rows.map { (id: try SQLiteRows.integer($0, 0), hash: try SQLiteRows.text($0, 1)) }
        // The hashes on the hashing pool's console lane (an administrator's edit).
        let ids = try await HashingPool.shared.run(.console) { cards.filter { (try? PINHash(parsing: $0.hash))?.matches(value) == true }.map(\.id) }
        guard !ids.isEmpty else { throw UserEditError(description: "user '\(name)' has no card with that number in \(location)") }
        try await database.write { sql in
            for id in ids { try await sql.execute("DELETE FROM kioskpad_users WHERE id = ?", [.int(id)]) }
        }
    }

    public func setTOTP(name: String, secret: [UInt8]) async throws {
        guard
            try await changed(
                "UPDATE kioskpad_users SET totp_secret = ?, totp_last_step = NULL WHERE name = ? AND kind = 'pin' RETURNING 1",
                [.text(TOTP.base32Encode(secret)), .text(name)])
        else { throw noPIN(name) }
    }

    public func list() async throws -> [UserSummary] {
        let rows = try await database.read { sql in
            try await sql.execute(
                """
                SELECT name, max(kind = 'pin'), max(totp_secret IS NOT NULL), max(kind = 'duress'), sum(kind = 'card')
                FROM kioskpad_users GROUP BY name ORDER BY min(id)
                """)
        }
        return try rows.map { row in
            UserSummary(
                name: try SQLiteRows.text(row, 0), hasPIN: try SQLiteRows.integer(row, 1) != 0, hasTOTP: try SQLiteRows.integer(row, 2) != 0,
                hasDuressPIN: try SQLiteRows.integer(row, 3) != 0, cards: Int(try SQLiteRows.integer(row, 4)))
        }
    }

    public func issueCode(user: String, hash: PINHash, expires: Date, door: String?) async throws {
        guard
            try await changed(
                """
                INSERT INTO kioskpad_codes (user_name, hash, expires_at, door)
                SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM kioskpad_users WHERE name = ?) RETURNING 1
                """, [.text(user), .text(hash.description), .int(Int64(expires.timeIntervalSince1970)), SQLiteRows.optional(door), .text(user)])
        else { throw UserEditError(description: "--user '\(user)' is not a user in \(location)") }
    }

    public func editSite<R: Sendable>(_ body: @escaping @Sendable (any SiteRulesTransaction) async throws -> R) async throws -> R {
        try await database.write { try await body(SQLiteSiteRulesTransaction(sql: $0)) }
    }

    public func addDoor(terminalID: String, secret: WebhookSecret) async throws {
        guard
            try await changed(
                "INSERT INTO kioskpad_doors (terminal_id, secret) VALUES (?, ?) ON CONFLICT (terminal_id) DO NOTHING RETURNING 1",
                [.text(terminalID), .text(secret.text)])
        else {
            throw UserEditError(
                description: "door '\(terminalID)' has its own secret already; `kioskpad verifier terminal remove \(terminalID)` revokes it first")
        }
    }

    public func doors() async throws -> [DoorIdentity] {
        try await database.read { sql in
            try await sql.execute("SELECT terminal_id, created_at FROM kioskpad_doors ORDER BY terminal_id")
        }.map { DoorIdentity(terminalID: try SQLiteRows.text($0, 0), createdAt: try SQLiteRows.text($0, 1)) }
    }

    public func removeDoor(terminalID: String) async throws -> Bool {
        try await changed("DELETE FROM kioskpad_doors WHERE terminal_id = ? RETURNING 1", [.text(terminalID)])
    }

    public func lockouts(policy: LockoutPolicy) async throws -> [TerminalLockout] {
        let rows = try await database.read { sql in
            try await sql.execute("SELECT terminal_id, failures, streak, locked_until FROM kioskpad_lockout ORDER BY terminal_id")
        }
        return try rows.map { TerminalLockout(terminal: try SQLiteRows.text($0, 0), tracker: SQLiteLockouts.tracker($0, offset: 1, policy: policy)) }
    }

    public func clearLockout(terminal: String) async throws -> Bool {
        try await changed("DELETE FROM kioskpad_lockout WHERE terminal_id = ? RETURNING 1", [.text(terminal)])
    }

    public func records() async throws -> [UserRecord] {
        try await database.read { try await SQLiteSiteRulesTransaction(sql: $0).records() }
    }

    public func auditRecords(last count: Int) async throws -> [String] {
        let rows = try await database.read { sql in
            try await sql.execute("SELECT record FROM (SELECT id, record FROM kioskpad_audit ORDER BY id DESC LIMIT ?) ORDER BY id", [.int(Int64(count))])
        }
        return try rows.map { try SQLiteRows.text($0, 0) }
    }

    /// Runs one statement ending in `RETURNING 1` in its own transaction; true when it changed a row.
    private func changed(_ statement: String, _ binds: [SQLiteData]) async throws -> Bool {
        try await database.write { try await $0.execute(statement, binds).count > 0 }
    }

    private func noPIN(_ name: String) -> UserEditError {
        UserEditError(description: "no user '\(name)' with a PIN in \(location)")
    }

    private func noUser(_ name: String) -> UserEditError {
        UserEditError(description: "no user '\(name)' in \(location)")
    }

    private static func keyID(_ tag: String?) -> String? {
        tag.map(LookupKey.keyID(ofTag:))
    }
}
