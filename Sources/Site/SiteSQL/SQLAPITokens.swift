import Foundation
import SQLKit
import SiteCore

/// API tokens in a ``SiteDatabase`` (schema version 12 and later), beside the console's
/// administrators and sessions.
extension SQLConsoleStore: APITokenStore {
    public func addToken(_ token: APIToken, hash: String) async throws -> Bool {
        try await database.changed(
            """
            INSERT INTO kioskpad_api_tokens (name, token_hash, scopes, role, created_by, created_at, expires_at)
            VALUES (\(bind: token.name), \(bind: hash), \(bind: token.scopes.sorted().map(\.rawValue).joined(separator: ",")), \(bind: token.role.name),
                \(bind: token.createdBy), \(bind: token.created.timeIntervalSince1970), \(bind: token.expires?.timeIntervalSince1970))
            ON CONFLICT (name) DO NOTHING RETURNING 1
            """) > 0
    }

    public func revokeToken(name: String, at: Date) async throws -> Bool {
        try await database.changed(
            "UPDATE kioskpad_api_tokens SET revoked_at = \(bind: at.timeIntervalSince1970) WHERE name = \(bind: name) AND revoked_at IS NULL RETURNING 1"
        ) > 0
    }

    public func tokens() async throws -> [APIToken] {
        try await database.read { sql in
            try await sql.raw("SELECT \(unsafeRaw: Self.tokenColumns) FROM kioskpad_api_tokens ORDER BY name").all()
        }.map(Self.token)
    }

    public func useToken(hash: String, now: Date) async throws -> APIToken? {
        // A read; the last use is written only when the one kept is a minute old or more, so a
        // busy client does not make every request a write (and, on SQLite, an fsync).
        let kept = try await database.read { sql in
            try await sql.raw("SELECT \(unsafeRaw: Self.tokenColumns) FROM kioskpad_api_tokens WHERE token_hash = \(bind: hash)").first().map(Self.token)
        }
        guard let found = kept else { return nil }
        if let last = found.lastUsed, now.timeIntervalSince(last) < Self.lastUseResolution { return found }
        _ = try await database.changed(
            "UPDATE kioskpad_api_tokens SET last_used_at = \(bind: now.timeIntervalSince1970) WHERE token_hash = \(bind: hash) RETURNING 1")
        return APIToken(
            name: found.name, scopes: found.scopes, role: found.role, createdBy: found.createdBy, created: found.created, expires: found.expires,
            revoked: found.revoked,
            lastUsed: now)
    }

    /// How stale a token's kept last use may be before a request writes it again.
    static let lastUseResolution: TimeInterval = 60

    static let tokenColumns = "name, scopes, role, created_by, created_at, expires_at, revoked_at, last_used_at"

    static func token(_ row: any SQLRow) throws -> APIToken {
        let date = { (column: String) in try row.optionalDouble(column).map { Date(timeIntervalSince1970: $0) } }
        return APIToken(
            name: try row.text("name"), scopes: Set(try row.text("scopes").split(separator: ",").compactMap { APIScope(rawValue: String($0)) }),
            role: try SQLConsoleStore.role(row), createdBy: try row.text("created_by"), created: Date(timeIntervalSince1970: try row.double("created_at")),
            expires: try date("expires_at"),
            revoked: try date("revoked_at"), lastUsed: try date("last_used_at"))
    }
}

/// The API's `Idempotency-Key` records, one per token and key (schema version 13 and later).
extension SQLConsoleStore {
    public func claimIdempotencyKey(token: String, key: String, fingerprint: String, now: Date, since: Date) async throws -> IdempotencyClaim {
        try await database.write { sql -> IdempotencyClaim in
            try await sql.raw("DELETE FROM kioskpad_api_idempotency WHERE created_at < \(bind: since.timeIntervalSince1970)").run()
            // A claim left running by a request that never finished is taken over.
            let abandoned = now.addingTimeInterval(-IdempotencyClaim.abandonedAfter).timeIntervalSince1970
            try await sql.raw(
                """
                DELETE FROM kioskpad_api_idempotency
                WHERE token = \(bind: token) AND idempotency_key = \(bind: key) AND status IS NULL AND created_at < \(bind: abandoned)
                """
            ).run()
            let inserted = try await sql.raw(
                """
                INSERT INTO kioskpad_api_idempotency (token, idempotency_key, fingerprint, created_at)
                VALUES (\(bind: token), \(bind: key), \(bind: fingerprint), \(bind: now.timeIntervalSince1970))
                ON CONFLICT (token, idempotency_key) DO NOTHING RETURNING 1 AS claimed
                """
            ).first()
            guard inserted == nil else { return .new }
            guard
                let row = try await sql.raw(
                    "SELECT fingerprint, status, body FROM kioskpad_api_idempotency WHERE token = \(bind: token) AND idempotency_key = \(bind: key)"
                ).first()
            else { return .new }
            let first = try row.text("fingerprint")
            guard !(try row.decodeNil(column: "status")) else { return .running(fingerprint: first) }
            return .answered(fingerprint: first, status: Int(try row.integer("status")), body: try row.optionalText("body") ?? "")
        }
    }

    public func finishIdempotencyKey(token: String, key: String, status: Int, body: String) async throws {
        _ = try await database.changed(
            """
            UPDATE kioskpad_api_idempotency SET status = \(bind: Int64(status)), body = \(bind: body)
            WHERE token = \(bind: token) AND idempotency_key = \(bind: key) RETURNING 1
            """)
    }

    public func committing<R: Sendable>(_ body: @escaping @Sendable () async throws -> R) async throws -> R {
        try await database.write { _ in try await body() }
    }
}
