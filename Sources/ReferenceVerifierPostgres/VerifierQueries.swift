import Foundation
import KeypadCore
import KeypadVerifier
import Logging
import PostgresNIO

/// The verifier's statements, on one connection (pooled, or an attempt's transaction).
/// Every value is a bound parameter.
struct VerifierQueries: Sendable {
    let connection: PostgresConnection
    let logger: Logger

    /// Inserts the id, or takes over a row whose window has passed; false for a live id.
    func claimRequestID(_ id: String, now: Date, window: TimeInterval) async throws -> Bool {
        let seconds = Int(now.timeIntervalSince1970)
        let expires = seconds + Int(window)
        let rows = try await connection.query("""
            INSERT INTO kioskpad_replay (webhook_id, expires_at) VALUES (\(id), \(expires))
            ON CONFLICT (webhook_id) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE kioskpad_replay.expires_at <= \(seconds)
            RETURNING 1
            """, logger: logger)
        let claimed = try await rows.count() > 0
        if claimed && Int.random(in: 0..<64) == 0 {
            // Now and then (1 request in 64 on average): forget the ids whose window passed.
            try await connection.query("DELETE FROM kioskpad_replay WHERE expires_at <= \(seconds)", logger: logger)
        }
        return claimed
    }

    /// The enabled lines an attempt is checked against (see ``VerifierStore/users(lookupTag:keyID:)``).
    func users(lookupTag: String?, keyID: String?) async throws -> UsersFile {
        let rows: PostgresRowSequence
        if let lookupTag, let keyID {
            rows = try await connection.query("""
                SELECT name, kind, hash, lookup_tag, totp_secret FROM kioskpad_users
                WHERE enabled AND (lookup_tag = \(lookupTag) OR lookup_key_id IS NULL OR lookup_key_id < \(keyID) OR lookup_key_id > \(keyID))
                ORDER BY id
                """, logger: logger)
        } else {
            rows = try await connection.query(
                "SELECT name, kind, hash, lookup_tag, totp_secret FROM kioskpad_users WHERE enabled ORDER BY id", logger: logger)
        }
        return UsersFile(users: try await records(rows))
    }

    func totpUsers() async throws -> [UserRecord] {
        try await records(try await connection.query("""
            SELECT name, kind, hash, lookup_tag, totp_secret FROM kioskpad_users
            WHERE enabled AND kind = 'pin' AND totp_secret IS NOT NULL ORDER BY id
            """, logger: logger))
    }

    private func records(_ rows: PostgresRowSequence) async throws -> [UserRecord] {
        var users: [UserRecord] = []
        for try await (name, kind, hash, tag, totp) in rows.decode((String, String, String, String?, String?).self) {
            users.append(UserRecord(
                name: name, pinHash: try PINHash(parsing: hash), totpSecret: totp.flatMap(TOTP.base32Decode),
                duress: kind == "duress", card: kind == "card", lookupTag: tag))
        }
        return users
    }

    /// True when this call moved `user`'s last TOTP step forward to `step`.
    func claimTOTPStep(user: String, step: Int) async throws -> Bool {
        let rows = try await connection.query("""
            UPDATE kioskpad_users SET totp_last_step = \(step)
            WHERE name = \(user) AND kind = 'pin' AND (totp_last_step IS NULL OR totp_last_step < \(step))
            RETURNING 1
            """, logger: logger)
        return try await rows.count() > 0
    }

    /// Checks `code` against every live code's hash (no early exit); the first match is
    /// used up by an `UPDATE` that only one transaction can make.
    func redeemCode(_ code: SecretDigits, now: Date) async throws -> String? {
        let seconds = Int(now.timeIntervalSince1970)
        var live: [(id: Int, user: String, hash: PINHash)] = []
        let rows = try await connection.query(
            "SELECT id, user_name, hash FROM kioskpad_codes WHERE used_at IS NULL AND expires_at > \(seconds) ORDER BY id", logger: logger)
        for try await (id, user, hash) in rows.decode((Int, String, String).self) {
            live.append((id, user, try PINHash(parsing: hash)))
        }
        var matched: Int?
        for entry in live where entry.hash.matches(code) { matched = matched ?? entry.id }
        guard let matched else { return nil }
        let used = try await connection.query(
            "UPDATE kioskpad_codes SET used_at = \(seconds) WHERE id = \(matched) AND used_at IS NULL RETURNING user_name", logger: logger)
        for try await user in used.decode(String.self) { return user }
        return nil
    }

    func hasUser(_ name: String) async throws -> Bool {
        let rows = try await connection.query(
            "SELECT 1 FROM kioskpad_users WHERE name = \(name) AND enabled LIMIT 1", logger: logger)
        return try await rows.count() > 0
    }

    /// `terminal`'s lockout state, its row locked until the transaction ends.
    func lockLockout(terminal: String, policy: LockoutPolicy) async throws -> LockoutTracker {
        try await connection.query(
            "INSERT INTO kioskpad_lockout (terminal_id) VALUES (\(terminal)) ON CONFLICT (terminal_id) DO NOTHING", logger: logger)
        let rows = try await connection.query(
            "SELECT failures, streak, locked_until FROM kioskpad_lockout WHERE terminal_id = \(terminal) FOR UPDATE", logger: logger)
        for try await (failures, streak, lockedUntil) in rows.decode(([Double], Int, Double?).self) {
            return LockoutTracker(
                policy: policy, failureTimes: failures.map { Duration.seconds($0) }, streak: streak,
                lockedUntil: lockedUntil.map { Duration.seconds($0) })
        }
        throw PostgresVerifierDatabase.Failure(description: "the lockout row of terminal \(terminal) vanished")
    }

    func saveLockout(terminal: String, tracker: LockoutTracker) async throws {
        let failures = tracker.failureTimes.map(Self.seconds)
        let lockedUntil = tracker.lockedUntil.map(Self.seconds)
        try await connection.query("""
            UPDATE kioskpad_lockout SET failures = \(failures), streak = \(tracker.streak), locked_until = \(lockedUntil)
            WHERE terminal_id = \(terminal)
            """, logger: logger)
    }

    func audit(_ fields: [(String, String)], instance: String) async throws {
        var object: [String: String] = [:]
        for (key, value) in fields { object[key] = value }
        let json = String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
        try await connection.query(
            "INSERT INTO kioskpad_audit (instance, record) VALUES (\(instance), \(json)::jsonb)", logger: logger)
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
