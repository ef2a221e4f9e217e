import Foundation
import SQLKit
import SiteCore

/// API tokens in a ``SiteDatabase`` (schema version 12 and later), beside the console's
/// administrators and sessions.
extension SQLConsoleStore: APITokenStore {
    public func addToken(_ token: APIToken, hash: String) async throws -> Bool {
        try await database.changed(
            """
            INSERT INTO kioskpad_api_tokens (name, token_hash, scopes, created_by, created_at, expires_at)
            VALUES (\(bind: token.name), \(bind: hash), \(bind: token.scopes.sorted().map(\.rawValue).joined(separator: ",")),
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
        let row = try await database.writeEach { sql in
            try await sql.raw(
                """
                UPDATE kioskpad_api_tokens SET last_used_at = \(bind: now.timeIntervalSince1970)
                WHERE token_hash = \(bind: hash) RETURNING \(unsafeRaw: Self.tokenColumns)
                """
            ).first()
        }
        return try row.map(Self.token)
    }

    static let tokenColumns = "name, scopes, created_by, created_at, expires_at, revoked_at, last_used_at"

    static func token(_ row: any SQLRow) throws -> APIToken {
        let date = { (column: String) in try row.optionalDouble(column).map { Date(timeIntervalSince1970: $0) } }
        return APIToken(
            name: try row.text("name"), scopes: Set(try row.text("scopes").split(separator: ",").compactMap { APIScope(rawValue: String($0)) }),
            createdBy: try row.text("created_by"), created: Date(timeIntervalSince1970: try row.double("created_at")), expires: try date("expires_at"),
            revoked: try date("revoked_at"), lastUsed: try date("last_used_at"))
    }
}
