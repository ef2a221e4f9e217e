import Foundation
import ReferenceVerifierCore
import SQLiteNIO

/// The replica's version and signing key in the SQLite file (table `kioskpad_replica`).
extension SQLiteUserDirectory: ReplicaKeeping {
    public func replicaVersion() async throws -> Int64 {
        let rows = try await database.read { try await $0.execute("SELECT version FROM kioskpad_replica WHERE id = 1") }
        guard let row = rows.first else { throw SQLiteVerifierDatabase.Failure(description: "database: the replica version row is missing") }
        return try SQLiteRows.integer(row, 0)
    }

    public func replicaSigningKey(make: @escaping @Sendable () -> [UInt8]) async throws -> [UInt8] {
        let stored = try await database.write { sql -> String? in
            try await sql.execute(
                "UPDATE kioskpad_replica SET signing_key = ? WHERE id = 1 AND signing_key IS NULL", [.text(Data(make()).base64EncodedString())])
            return try await sql.execute("SELECT signing_key FROM kioskpad_replica WHERE id = 1").first?.columns.first?.data.string
        }
        guard let stored, let raw = Data(base64Encoded: stored), raw.count == 32 else {
            throw SQLiteVerifierDatabase.Failure(description: "database: the replica signing key is missing or not 32 bytes")
        }
        return Array(raw)
    }
}
