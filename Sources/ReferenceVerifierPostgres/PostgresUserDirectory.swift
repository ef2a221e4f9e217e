import Foundation
import KeypadCore
import KeypadVerifier
import PostgresNIO
import ReferenceVerifierCore

/// The users in the verifier's database (`kioskpad verifier user` with `server.store:
/// postgres`): one row per PIN, duress PIN or card, as the users file has one line each.
/// A change is one statement or one transaction, so running instances see it at their next
/// attempt; two changes at once both land.
public struct PostgresUserDirectory: UserDirectory {
    public let database: PostgresVerifierDatabase
    public let location: String
    public var configKey: String { "server.postgres" }

    public init(database: PostgresVerifierDatabase, location: String) {
        self.database = database
        self.location = location
    }

    private typealias EditError = UsersFileEditor.EditError

    public func add(name: String, hash: PINHash, tag: String?) async throws {
        let inserted = try await rowsChanged("""
            INSERT INTO kioskpad_users (name, kind, hash, lookup_tag, lookup_key_id)
            VALUES (\(name), 'pin', \(hash.description), \(tag), \(Self.keyID(tag)))
            ON CONFLICT (name) WHERE kind = 'pin' DO NOTHING RETURNING 1
            """)
        guard inserted > 0 else {
            throw EditError(description: "user '\(name)' is already in \(location); `kioskpad verifier user set-pin \(name)` changes the PIN")
        }
    }

    public func remove(name: String) async throws -> Int {
        let removed = try await rowsChanged("DELETE FROM kioskpad_users WHERE name = \(name) RETURNING 1")
        guard removed > 0 else { throw EditError(description: "no user '\(name)' in \(location)") }
        return removed
    }

    public func setPIN(name: String, hash: PINHash, tag: String?) async throws {
        let changed = try await rowsChanged("""
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
            guard try await rows.count() > 0 else { throw EditError(description: "no user '\(name)' in \(location)") }
            try await connection.query("DELETE FROM kioskpad_users WHERE name = \(name) AND kind = 'duress'", logger: logger)
            try await connection.query("""
                INSERT INTO kioskpad_users (name, kind, hash, lookup_tag, lookup_key_id)
                VALUES (\(name), 'duress', \(hash.description), \(tag), \(Self.keyID(tag)))
                """, logger: logger)
        }
    }

    public func addCard(name: String, hash: PINHash, tag: String?) async throws {
        _ = try await rowsChanged("""
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
        let ids = cards.filter { (try? PINHash(parsing: $0.hash))?.matches(value) == true }.map(\.id)
        guard !ids.isEmpty else { throw EditError(description: "user '\(name)' has no card with that number in \(location)") }
        _ = try await rowsChanged("DELETE FROM kioskpad_users WHERE id = ANY(\(ids)) RETURNING 1")
    }

    public func setTOTP(name: String, secret: [UInt8]) async throws {
        let changed = try await rowsChanged("""
            UPDATE kioskpad_users SET totp_secret = \(TOTP.base32Encode(secret)), totp_last_step = NULL
            WHERE name = \(name) AND kind = 'pin' RETURNING 1
            """)
        guard changed > 0 else { throw noPIN(name) }
    }

    public func list() async throws -> [UsersFileEditor.Summary] {
        let logger = database.logger
        return try await database.use { connection in
            var summaries: [UsersFileEditor.Summary] = []
            let rows = try await connection.query("""
                SELECT name, bool_or(kind = 'pin'), bool_or(totp_secret IS NOT NULL), bool_or(kind = 'duress'),
                       count(*) FILTER (WHERE kind = 'card')
                FROM kioskpad_users GROUP BY name ORDER BY min(id)
                """, logger: logger)
            for try await (name, pin, totp, duress, cards) in rows.decode((String, Bool, Bool, Bool, Int).self) {
                summaries.append(UsersFileEditor.Summary(name: name, hasPIN: pin, hasTOTP: totp, hasDuressPIN: duress, cards: cards))
            }
            return summaries
        }
    }

    /// Stores a new one-time code's hash for `user` (who must have a PIN), valid until `expires`.
    public func issueCode(user: String, hash: PINHash, expires: Date) async throws {
        let location = self.location
        let seconds = Int(expires.timeIntervalSince1970)
        let inserted = try await rowsChanged("""
            INSERT INTO kioskpad_codes (user_name, hash, expires_at)
            SELECT \(user), \(hash.description), \(seconds) WHERE EXISTS (SELECT 1 FROM kioskpad_users WHERE name = \(user) AND enabled)
            RETURNING 1
            """)
        guard inserted > 0 else { throw EditError(description: "--user '\(user)' is not a user in \(location)") }
    }

    private func noPIN(_ name: String) -> EditError {
        EditError(description: "no user '\(name)' in \(location)")
    }

    /// How many rows a statement ending in `RETURNING 1` changed.
    private func rowsChanged(_ query: PostgresQuery) async throws -> Int {
        let logger = database.logger
        return try await database.use { connection in
            try await connection.query(query, logger: logger).count()
        }
    }

    private static func keyID(_ tag: String?) -> String? {
        tag.map { String($0.prefix(8)) }
    }
}
