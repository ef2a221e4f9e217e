import Foundation
import PostgresNIO
import ReferenceVerifierCore

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
        let logger = database.logger
        let candidate = Data(make()).base64EncodedString()
        let stored = try await database.transaction { connection -> String? in
            try await connection.query(
                "UPDATE kioskpad_replica SET signing_key = \(candidate) WHERE id = 1 AND signing_key IS NULL", logger: logger)
            for try await key in try await connection.query("SELECT signing_key FROM kioskpad_replica WHERE id = 1", logger: logger).decode(String?.self) {
                return key
            }
            return nil
        }
        guard let stored, let raw = Data(base64Encoded: stored), raw.count == 32 else {
            throw PostgresVerifierDatabase.Failure(description: "database: the replica signing key is missing or not 32 bytes")
        }
        return Array(raw)
    }
}
