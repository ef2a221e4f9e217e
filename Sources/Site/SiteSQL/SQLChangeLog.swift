import Foundation
import SQLKit
import SiteCore

/// The change log (schema version 23 and later) and the transaction an administrator's
/// change commits in, on ``SQLVerifierStore``.
extension SQLVerifierStore {
    /// One write transaction; the stores on this database join it while `body` runs.
    public func commitChange<R: Sendable>(_ body: @escaping @Sendable () async throws -> R) async throws -> R {
        try await database.write { _ in try await body() }
    }

    public func logChanges(_ entries: [ChangeLogEntry]) async throws {
        guard !entries.isEmpty else { return }
        let at = Date().timeIntervalSince1970
        let (instance, order, database) = (instance, database.dialect.changeLogOrder, database)
        try await database.write { sql in
            for statement in order { try await sql.raw(statement).run() }
            var insert = sql.insert(into: "kioskpad_change_log").columns("at", "kind", "subject", "action", "instance")
            for entry in entries { insert = insert.values(at, entry.kind.rawValue, entry.subject, entry.cause.rawValue, instance) }
            try await insert.run()
            // The replica's version, if this change moves it, becomes this entry's position.
            OpenWriteTransaction.joining(database)?.noteLoggedChange()
        }
    }

    public func changeLog(after: Int64, limit: Int) async throws -> [LoggedChange] {
        let rows = try await database.read { sql in
            try await sql.select().columns("seq", "at", "kind", "subject", "action").from("kioskpad_change_log")
                .where("seq", .greaterThan, after).orderBy("seq").limit(limit).all()
        }
        return try rows.map { row in
            let kind = try row.decode(column: "kind", as: String.self)
            let action = try row.decode(column: "action", as: String.self)
            guard let changed = ChangedKind(rawValue: kind), let done = ChangeCause(rawValue: action) else {
                throw SiteStoreFailure("kioskpad_change_log holds kind '\(kind)' or action '\(action)', which this kioskpad does not know")
            }
            return LoggedChange(
                sequence: try row.decode(column: "seq", as: Int64.self),
                entry: ChangeLogEntry(kind: changed, subject: try row.decode(column: "subject", as: String.self), cause: done),
                time: Date(timeIntervalSince1970: try row.decode(column: "at", as: Double.self)))
        }
    }
}
