import Foundation
import KioskPadAccess
import PostgresNIO
import SiteCore

/// The replica's version and signing key in PostgreSQL (table `kioskpad_replica`), one for
/// every instance: the first to ask stores its key, the others read it.
extension PostgresUserDirectory: ReplicaKeeping {
    public func replicaVersion() async throws -> Int64 {
        let logger = database.logger
        return try await database.use { connection in
            for try await version in try await connection.query("SELECT version FROM kioskpad_replica WHERE id = 1", logger: logger).decode(Int64.self) {
                return version
            }
            throw PostgresVerifierDatabase.Failure(description: "database: the replica version row is missing")
        }
    }

    public func replicaSigningKey(make: @escaping @Sendable () -> [UInt8]) async throws -> [UInt8] {
        try await storedKey(tag: false, make: make)
    }

    public func replicaTagKey(make: @escaping @Sendable () -> [UInt8]) async throws -> [UInt8] {
        try await storedKey(tag: true, make: make)
    }

    public func setReplicaTag(name: String, hash: PINHash, tag: String) async throws {
        let logger = database.logger
        let text = hash.description
        try await database.use { connection in
            _ = try await connection.query("UPDATE kioskpad_users SET replica_tag = \(tag) WHERE name = \(name) AND hash = \(text)", logger: logger)
        }
    }

    public func replicaTags() async throws -> [String: String] {
        let logger = database.logger
        return try await database.use { connection in
            var tags: [String: String] = [:]
            for try await (hash, tag) in try await connection.query(
                "SELECT hash, replica_tag FROM kioskpad_users WHERE replica_tag IS NOT NULL", logger: logger
            ).decode((String, String).self) {
                tags[hash] = tag
            }
            return tags
        }
    }

    /// The signing key or the tag key of the replica row: the first instance's `make()` is
    /// stored, every later caller, on any instance, reads it.
    private func storedKey(tag: Bool, make: @escaping @Sendable () -> [UInt8]) async throws -> [UInt8] {
        let logger = database.logger
        let candidate = Data(make()).base64EncodedString()
        let stored = try await database.transaction { connection -> String? in
            if tag {
                try await connection.query("UPDATE kioskpad_replica SET tag_key = \(candidate) WHERE id = 1 AND tag_key IS NULL", logger: logger)
                for try await key in try await connection.query("SELECT tag_key FROM kioskpad_replica WHERE id = 1", logger: logger).decode(String?.self) {
                    return key
                }
            } else {
                try await connection.query("UPDATE kioskpad_replica SET signing_key = \(candidate) WHERE id = 1 AND signing_key IS NULL", logger: logger)
                for try await key in try await connection.query("SELECT signing_key FROM kioskpad_replica WHERE id = 1", logger: logger).decode(String?.self) {
                    return key
                }
            }
            return nil
        }
        guard let stored, let raw = Data(base64Encoded: stored), raw.count == 32 else {
            throw PostgresVerifierDatabase.Failure(description: "database: the replica's \(tag ? "tag" : "signing") key is missing or not 32 bytes")
        }
        return Array(raw)
    }
}
