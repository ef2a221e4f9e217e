import Foundation
import KioskPadAccess
import SQLKit
import SiteCore

/// The replica's version, signing key and tag key (table `kioskpad_replica`, one row), and
/// each credential's replica tag.
extension SQLUserDirectory: ReplicaKeeping {
    public func replicaVersion() async throws -> Int64 {
        guard let row = try await database.read({ try await $0.raw("SELECT version FROM kioskpad_replica WHERE id = 1").first() }) else {
            throw SiteStoreFailure("database: the replica version row is missing")
        }
        return try row.integer("version")
    }

    public func replicaSigningKey(make: @escaping @Sendable () -> [UInt8]) async throws -> [UInt8] {
        try await storedKey(.signingKey, make: make)
    }

    public func replicaSigningKeyPair() async throws -> (current: [UInt8]?, next: [UInt8]?) {
        guard
            let row = try await database.read({ sql in
                try await sql.raw("SELECT signing_key, next_signing_key FROM kioskpad_replica WHERE id = 1").first()
            })
        else { throw SiteStoreFailure("database: the replica row is missing") }
        func key(_ column: String) throws -> [UInt8]? {
            guard let stored = try row.optionalText(column) else { return nil }
            guard let raw = Self.rawKey(stored) else { throw SiteStoreFailure("database: the replica's \(column) is not 32 bytes") }
            return raw
        }
        return (try key("signing_key"), try key("next_signing_key"))
    }

    /// A stored key's 32 bytes from its base64; nil for anything else.
    static func rawKey(_ stored: String) -> [UInt8]? {
        guard let raw = Data(base64Encoded: stored), raw.count == 32 else { return nil }
        return Array(raw)
    }

    public func beginReplicaKeyRotation(next: [UInt8]) async throws -> Bool {
        let order = database.dialect.changeLogOrder
        return try await database.write { sql in
            for statement in order { try await sql.raw(statement).run() }
            let row = try await sql.raw(
                """
                UPDATE kioskpad_replica SET next_signing_key = \(bind: Data(next).base64EncodedString())
                WHERE id = 1 AND next_signing_key IS NULL AND signing_key IS NOT NULL RETURNING id
                """
            ).first()
            return row != nil
        }
    }

    public func finishReplicaKeyRotation() async throws -> Bool {
        let (order, pending) = (database.dialect.changeLogOrder, database.dialect.replicaPending)
        return try await database.write { sql in
            for statement in order { try await sql.raw(statement).run() }
            // Every door fetches a replica signed with the new key: the version moves at commit.
            let row = try await sql.raw(
                """
                UPDATE kioskpad_replica SET signing_key = next_signing_key, next_signing_key = NULL, \(unsafeRaw: pending)
                WHERE id = 1 AND next_signing_key IS NOT NULL RETURNING id
                """
            ).first()
            return row != nil
        }
    }

    public func replicaTagKey(make: @escaping @Sendable () -> [UInt8]) async throws -> [UInt8] {
        try await storedKey(.tagKey, make: make)
    }

    public func setReplicaTag(name: String, hash: PINHash, tag: String) async throws {
        _ = try await database.writeEach { sql in
            try await sql.raw("UPDATE kioskpad_users SET replica_tag = \(bind: tag) WHERE name = \(bind: name) AND hash = \(bind: hash.description)").run()
        }
    }

    public func replicaTags() async throws -> [String: String] {
        let rows = try await database.read { try await $0.raw("SELECT hash, replica_tag FROM kioskpad_users WHERE replica_tag IS NOT NULL").all() }
        var tags: [String: String] = [:]
        for row in rows { tags[try row.text("hash")] = try row.text("replica_tag") }
        return tags
    }

    public func replicaLines(of names: [String]) async throws -> [(record: UserRecord, tag: String?)] {
        guard !names.isEmpty else { return [] }
        let columns = userColumns.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } + ["replica_tag"]
        let rows = try await database.read { sql in
            try await sql.select().columns(columns).from("kioskpad_users").where("name", .in, names).orderBy("id").all()
        }
        return try rows.map { (try $0.userRecord(), try $0.optionalText("replica_tag")) }
    }

    /// A key column of the replica row.
    private enum KeyColumn: String {
        case signingKey = "signing_key"
        case tagKey = "tag_key"
    }

    /// The key in `column`: the first caller's `make()` is stored, every later caller reads it.
    private func storedKey(_ column: KeyColumn, make: @escaping @Sendable () -> [UInt8]) async throws -> [UInt8] {
        let (name, order) = (column.rawValue, database.dialect.changeLogOrder)
        let stored = try await database.write { sql -> String? in
            for statement in order { try await sql.raw(statement).run() }
            try await sql.raw(
                "UPDATE kioskpad_replica SET \(unsafeRaw: name) = \(bind: Data(make()).base64EncodedString()) WHERE id = 1 AND \(unsafeRaw: name) IS NULL"
            ).run()
            return try await sql.raw("SELECT \(unsafeRaw: name) FROM kioskpad_replica WHERE id = 1").first()?.optionalText(name)
        }
        guard let raw = stored.flatMap(Self.rawKey) else { throw SiteStoreFailure("database: the replica's \(name) is missing or not 32 bytes") }
        return raw
    }
}
