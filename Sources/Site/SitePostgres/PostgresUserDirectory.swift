import Foundation
import KioskPadAccess
import KioskPadCore
import PostgresNIO
import SiteCore

/// The users, codes and lockouts in the verifier's PostgreSQL database (`kioskpad verifier
/// user|code|lockout|import|export` with `server.store: postgres`): one row per PIN, duress PIN or card, as the users file has one line each.
/// A change is one statement or one transaction, so running instances see it at their next
/// attempt; two changes at once both land.
public struct PostgresUserDirectory: VerifierAdministration {
    public let database: PostgresVerifierDatabase
    public let location: String
    public var configKey: String { "server.postgres" }

    public init(database: PostgresVerifierDatabase, location: String) {
        self.database = database
        self.location = location
    }

    public func add(name: String, hash: PINHash, tag: String?) async throws {
        let logger = database.logger
        let inserted = try await database.use {
            try await PostgresSiteRulesTransaction(connection: $0, logger: logger).addPIN(name: name, hash: hash, tag: tag)
        }
        guard inserted else { throw UserEditError.alreadyThere(name, in: location) }
    }

    public func remove(name: String) async throws -> Int {
        let logger = database.logger
        let removed = try await database.transaction { connection in
            let lines = try await connection.query("DELETE FROM kioskpad_users WHERE name = \(name) RETURNING 1", logger: logger).count()
            try await connection.query("DELETE FROM kioskpad_access WHERE user_name = \(name)", logger: logger)
            return lines
        }
        guard removed > 0 else { throw UserEditError(description: "no user '\(name)' in \(location)") }
        return removed
    }

    public func setPIN(name: String, hash: PINHash, tag: String?) async throws {
        let changed = try await rowsChanged(
            """
            UPDATE kioskpad_users SET hash = \(hash.description), lookup_tag = \(tag), lookup_key_id = \(Self.keyID(tag))
            WHERE name = \(name) AND kind = 'pin' RETURNING 1
            """)
        guard changed > 0 else { throw noPIN(name) }
    }

    public func setDuress(name: String, hash: PINHash, tag: String?) async throws {
        let location = self.location
        let logger = database.logger
        try await database.transaction { connection in
            let rows = try await connection.query(
                "SELECT 1 FROM kioskpad_users WHERE name = \(name) AND kind = 'pin' FOR UPDATE", logger: logger)
            guard try await rows.count() > 0 else { throw UserEditError(description: "no user '\(name)' in \(location)") }
            try await connection.query("DELETE FROM kioskpad_users WHERE name = \(name) AND kind = 'duress'", logger: logger)
            try await connection.query(
                """
                INSERT INTO kioskpad_users (name, kind, hash, lookup_tag, lookup_key_id)
                VALUES (\(name), 'duress', \(hash.description), \(tag), \(Self.keyID(tag)))
                """, logger: logger)
        }
    }

    public func addCard(name: String, hash: PINHash, tag: String?) async throws {
        _ = try await rowsChanged(
            """
            INSERT INTO kioskpad_users (name, kind, hash, lookup_tag, lookup_key_id)
            VALUES (\(name), 'card', \(hash.description), \(tag), \(Self.keyID(tag))) RETURNING 1
            """)
    }

    /// Checks the hash of each of `name`'s cards against `value`; deletes the one that matches.
    public func removeCard(name: String, value: SecretDigits) async throws {
        let location = self.location
        let logger = database.logger
        let cards: [(id: Int, hash: String)] = try await database.use { connection in
            var cards: [(id: Int, hash: String)] = []
            let rows = try await connection.query(
                "SELECT id, hash FROM kioskpad_users WHERE name = \(name) AND kind = 'card'", logger: logger)
            for try await (id, hash) in rows.decode((Int, String).self) { cards.append((id, hash)) }
            return cards
        }
        // The hashes on the hashing pool's console lane (an administrator's edit).
        let ids = try await HashingPool.shared.run(.console) { cards.filter { (try? PINHash(parsing: $0.hash))?.matches(value) == true }.map(\.id) }
        guard !ids.isEmpty else { throw UserEditError(description: "user '\(name)' has no card with that number in \(location)") }
        _ = try await rowsChanged("DELETE FROM kioskpad_users WHERE id = ANY(\(ids)) RETURNING 1")
    }

    public func setTOTP(name: String, secret: [UInt8]) async throws {
        let changed = try await rowsChanged(
            """
            UPDATE kioskpad_users SET totp_secret = \(TOTP.base32Encode(secret)), totp_last_step = NULL
            WHERE name = \(name) AND kind = 'pin' RETURNING 1
            """)
        guard changed > 0 else { throw noPIN(name) }
    }

    public func list() async throws -> [UserSummary] {
        let logger = database.logger
        return try await database.use { connection in
            var summaries: [UserSummary] = []
            let rows = try await connection.query(
                """
                SELECT name, bool_or(kind = 'pin'), bool_or(totp_secret IS NOT NULL), bool_or(kind = 'duress'),
                       count(*) FILTER (WHERE kind = 'card')
                FROM kioskpad_users GROUP BY name ORDER BY min(id)
                """, logger: logger)
            for try await (name, pin, totp, duress, cards) in rows.decode((String, Bool, Bool, Bool, Int).self) {
                summaries.append(UserSummary(name: name, hasPIN: pin, hasTOTP: totp, hasDuressPIN: duress, cards: cards))
            }
            return summaries
        }
    }

    public func issueCode(user: String, hash: PINHash, expires: Date, door: String?) async throws {
        let location = self.location
        let seconds = Int(expires.timeIntervalSince1970)
        let inserted = try await rowsChanged(
            """
            INSERT INTO kioskpad_codes (user_name, hash, expires_at, door)
            SELECT \(user), \(hash.description), \(seconds), \(door) WHERE EXISTS (SELECT 1 FROM kioskpad_users WHERE name = \(user))
            RETURNING 1
            """)
        guard inserted > 0 else { throw UserEditError(description: "--user '\(user)' is not a user in \(location)") }
    }

    /// One transaction at a time across instances (an advisory lock), with the users table
    /// locked against other writers, so a check and the change it allows stay true together.
    public func editSite<R: Sendable>(_ body: @escaping @Sendable (any SiteRulesTransaction) async throws -> R) async throws -> R {
        let logger = database.logger
        return try await database.transaction { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(7305002)", logger: logger)
            try await connection.query("LOCK TABLE kioskpad_users IN EXCLUSIVE MODE", logger: logger)
            return try await body(PostgresSiteRulesTransaction(connection: connection, logger: logger))
        }
    }

    public func addDoor(terminalID: String, secret: WebhookSecret) async throws {
        let added = try await rowsChanged(
            "INSERT INTO kioskpad_doors (terminal_id, secret) VALUES (\(terminalID), \(secret.text)) ON CONFLICT (terminal_id) DO NOTHING RETURNING 1")
        guard added > 0 else {
            throw UserEditError(
                description: "door '\(terminalID)' has its own secret already; `kioskpad verifier terminal remove \(terminalID)` revokes it first")
        }
    }

    public func doors() async throws -> [DoorIdentity] {
        let logger = database.logger
        return try await database.use { connection in
            var doors: [DoorIdentity] = []
            let rows = try await connection.query(
                "SELECT terminal_id, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') FROM kioskpad_doors ORDER BY terminal_id",
                logger: logger)
            for try await (id, created) in rows.decode((String, String).self) { doors.append(DoorIdentity(terminalID: id, createdAt: created)) }
            return doors
        }
    }

    public func removeDoor(terminalID: String) async throws -> Bool {
        try await rowsChanged("DELETE FROM kioskpad_doors WHERE terminal_id = \(terminalID) RETURNING 1") > 0
    }

    public func lockouts(policy: LockoutPolicy) async throws -> [TerminalLockout] {
        let logger = database.logger
        return try await database.use { connection in
            var terminals: [String] = []
            let rows = try await connection.query("SELECT terminal_id FROM kioskpad_lockout ORDER BY terminal_id", logger: logger)
            for try await terminal in rows.decode(String.self) { terminals.append(terminal) }
            var lockouts: [TerminalLockout] = []
            let queries = VerifierQueries(connection: connection, logger: logger)
            for terminal in terminals {
                lockouts.append(TerminalLockout(terminal: terminal, tracker: try await queries.lockout(terminal: terminal, policy: policy, forUpdate: false)))
            }
            return lockouts
        }
    }

    public func clearLockout(terminal: String) async throws -> Bool {
        try await rowsChanged("DELETE FROM kioskpad_lockout WHERE terminal_id = \(terminal) RETURNING 1") > 0
    }

    public func records() async throws -> [UserRecord] {
        let logger = database.logger
        return try await database.use { try await VerifierQueries(connection: $0, logger: logger).allRecords() }
    }

    public func auditRecords(last count: Int) async throws -> [String] {
        let logger = database.logger
        return try await database.use { connection in
            var records: [String] = []
            let rows = try await connection.query(
                "SELECT record::text FROM (SELECT id, record FROM kioskpad_audit ORDER BY id DESC LIMIT \(count)) newest ORDER BY id", logger: logger)
            for try await record in rows.decode(String.self) { records.append(record) }
            return records
        }
    }

    private func noPIN(_ name: String) -> UserEditError {
        UserEditError(description: "no user '\(name)' in \(location)")
    }

    /// How many rows a statement ending in `RETURNING 1` changed.
    private func rowsChanged(_ query: PostgresQuery) async throws -> Int {
        try await database.rowsChanged(query)
    }

    private static func keyID(_ tag: String?) -> String? {
        tag.map(LookupKey.keyID(ofTag:))
    }
}
