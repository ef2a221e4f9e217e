import Foundation
import KioskPadAccess
import KioskPadCore
import Logging
import PostgresNIO
import SiteCore

/// The verifier's statements, on one connection (pooled, or an attempt's transaction).
/// Every value is a bound parameter.
struct VerifierQueries: Sendable {
    let connection: PostgresConnection
    let logger: Logger

    /// Inserts the id, or takes over a row whose window has passed; false for a live id.
    func claimRequestID(_ id: String, now: Date, window: TimeInterval) async throws -> Bool {
        let seconds = Int(now.timeIntervalSince1970)
        let expires = seconds + Int(window)
        let rows = try await connection.query(
            """
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
            rows = try await connection.query(
                """
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
        try await records(
            try await connection.query(
                """
                SELECT name, kind, hash, lookup_tag, totp_secret FROM kioskpad_users
                WHERE enabled AND kind = 'pin' AND totp_secret IS NOT NULL ORDER BY id
                """, logger: logger))
    }

    /// Every user line, disabled ones too, in the order they were added.
    func allRecords() async throws -> [UserRecord] {
        try await records(
            try await connection.query(
                "SELECT name, kind, hash, lookup_tag, totp_secret FROM kioskpad_users ORDER BY id", logger: logger))
    }

    private func records(_ rows: PostgresRowSequence) async throws -> [UserRecord] {
        var users: [UserRecord] = []
        for try await (name, kind, hash, tag, totp) in rows.decode((String, String, String, String?, String?).self) {
            users.append(UserRecord(name: name, kind: kind, pinHash: try PINHash(parsing: hash), totpSecret: totp.flatMap(TOTP.base32Decode), lookupTag: tag))
        }
        return users
    }

    /// True when this call moved `user`'s last TOTP step forward to `step`.
    func claimTOTPStep(user: String, step: Int) async throws -> Bool {
        let rows = try await connection.query(
            """
            UPDATE kioskpad_users SET totp_last_step = \(step)
            WHERE name = \(user) AND kind = 'pin' AND (totp_last_step IS NULL OR totp_last_step < \(step))
            RETURNING 1
            """, logger: logger)
        return try await rows.count() > 0
    }

    /// The codes neither used nor expired at `now`.
    func liveCodes(now: Date) async throws -> [IssuedCode] {
        let seconds = Int(now.timeIntervalSince1970)
        var live: [IssuedCode] = []
        let rows = try await connection.query(
            "SELECT id, user_name, hash, door FROM kioskpad_codes WHERE used_at IS NULL AND expires_at > \(seconds) ORDER BY id", logger: logger)
        for try await (id, user, hash, door) in rows.decode((Int64, String, String, String?).self) {
            live.append(IssuedCode(id: id, user: user, hash: try PINHash(parsing: hash), door: door))
        }
        return live
    }

    /// Uses up code `id` by an `UPDATE` that only one transaction can make; false when it
    /// was used or expired meanwhile.
    func useCode(id: Int64, now: Date) async throws -> Bool {
        let seconds = Int(now.timeIntervalSince1970)
        let used = try await connection.query(
            "UPDATE kioskpad_codes SET used_at = \(seconds) WHERE id = \(id) AND used_at IS NULL AND expires_at > \(seconds) RETURNING 1",
            logger: logger)
        return try await used.count() > 0
    }

    func doorSecret(terminal: String) async throws -> WebhookSecret? {
        let rows = try await connection.query("SELECT secret FROM kioskpad_doors WHERE terminal_id = \(terminal)", logger: logger)
        for try await secret in rows.decode(String.self) { return try WebhookSecret(parsing: secret) }
        return nil
    }

    /// `terminal`'s lockout state; `forUpdate`: its row made if missing and locked until the
    /// transaction ends.
    func lockout(terminal: String, policy: LockoutPolicy, forUpdate: Bool) async throws -> LockoutTracker {
        let rows: PostgresRowSequence
        if forUpdate {
            try await connection.query(
                "INSERT INTO kioskpad_lockout (terminal_id) VALUES (\(terminal)) ON CONFLICT (terminal_id) DO NOTHING", logger: logger)
            rows = try await connection.query(
                "SELECT failures, streak, locked_until FROM kioskpad_lockout WHERE terminal_id = \(terminal) FOR UPDATE", logger: logger)
        } else {
            rows = try await connection.query(
                "SELECT failures, streak, locked_until FROM kioskpad_lockout WHERE terminal_id = \(terminal)", logger: logger)
        }
        for try await (failures, streak, lockedUntil) in rows.decode((String, Int, Double?).self) {
            return LockoutTracker(
                policy: policy, failureTimes: LockoutHistory.failures(failures), streak: streak,
                lockedUntil: lockedUntil.map { Duration.seconds($0) })
        }
        guard !forUpdate else { throw PostgresVerifierDatabase.Failure(description: "the lockout row of terminal \(terminal) vanished") }
        return LockoutTracker(policy: policy)
    }

    func saveLockout(terminal: String, tracker: LockoutTracker) async throws {
        let failures = LockoutHistory.text(tracker.failureTimes)
        let lockedUntil = tracker.lockedUntil.map(Self.seconds)
        try await connection.query(
            """
            UPDATE kioskpad_lockout SET failures = \(failures), streak = \(tracker.streak), locked_until = \(lockedUntil)
            WHERE terminal_id = \(terminal)
            """, logger: logger)
    }

    func audit(_ fields: [(String, String)], instance: String) async throws {
        let json = try AuditRecordJSON.encode(fields)
        try await connection.query(
            "INSERT INTO kioskpad_audit (instance, record) VALUES (\(instance), \(json)::jsonb)", logger: logger)
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
