import Foundation
import KioskPadAccess
import SQLiteNIO
import SiteCore

/// The replica's version and signing key in the SQLite file (table `kioskpad_replica`).
extension SQLiteUserDirectory: ReplicaKeeping {
    public func replicaVersion() async throws -> Int64 {
        let rows = try await database.read { try await $0.execute("SELECT version FROM kioskpad_replica WHERE id = 1") }
        guard let row = rows.first else { throw SQLiteVerifierDatabase.Failure(description: "database: the replica version row is missing") }
        return try SQLiteRows.integer(row, 0)
    }

    public func replicaSigningKey(make: @escaping @Sendable () -> [UInt8]) async throws -> [UInt8] {
        try await storedKey("signing_key", make: make)
    }

    public func replicaTagKey(make: @escaping @Sendable () -> [UInt8]) async throws -> [UInt8] {
        try await storedKey("tag_key", make: make)
    }

    public func setReplicaTag(name: String, hash: PINHash, tag: String) async throws {
        try await database.write { sql in
            _ = try await sql.execute(
                "UPDATE kioskpad_users SET replica_tag = ? WHERE name = ? AND hash = ?", [.text(tag), .text(name), .text(hash.description)])
        }
    }

    public func replicaTags() async throws -> [String: String] {
        let rows = try await database.read { try await $0.execute("SELECT hash, replica_tag FROM kioskpad_users WHERE replica_tag IS NOT NULL") }
        var tags: [String: String] = [:]
        for row in rows {
            if let hash = row.columns.first?.data.string, let tag = row.columns.dropFirst().first?.data.string { tags[hash] = tag }
        }
        return tags
    }

    /// The key in `column` of the replica row: the first caller's `make()` is stored, every
    /// later caller reads it.
    private func storedKey(_ column: String, make: @escaping @Sendable () -> [UInt8]) async throws -> [UInt8] {
        let stored = try await database.write { sql -> String? in
            try await sql.execute(
                "UPDATE kioskpad_replica SET \(column) = ? WHERE id = 1 AND \(column) IS NULL", [.text(Data(make()).base64EncodedString())])
            return try await sql.execute("SELECT \(column) FROM kioskpad_replica WHERE id = 1").first?.columns.first?.data.string
        }
        guard let stored, let raw = Data(base64Encoded: stored), raw.count == 32 else {
            throw SQLiteVerifierDatabase.Failure(description: "database: the replica's \(column) is missing or not 32 bytes")
        }
        return Array(raw)
    }
}
