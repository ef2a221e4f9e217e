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
        let (instance, order) = (instance, database.dialect.changeLogOrder)
        try await database.write { sql in try await Self.insertChangeLog(entries, at: at, instance: instance, order: order, on: sql) }
    }

    /// Appends `entries` to the change log in the write transaction `sql` belongs to, after
    /// the log's order lock (``SiteDialect/changeLogOrder``), and notes that transaction as
    /// logged: the replica's version, if it moves, becomes the last entry's position. The one
    /// insert of an administrator's change, a door's change and SQLite's settle.
    static func insertChangeLog(
        _ entries: [ChangeLogEntry], at: Double = Date().timeIntervalSince1970, instance: String, order: [SQLQueryString], on sql: any SQLDatabase
    ) async throws {
        for statement in order { try await sql.raw(statement).run() }
        var insert = sql.insert(into: "kioskpad_change_log").columns("at", "kind", "subject", "action", "instance")
        for entry in entries { insert = insert.values(at, entry.kind.rawValue, entry.subject, entry.cause.rawValue, instance) }
        try await insert.run()
        OpenWriteTransaction.current?.noteLoggedChange()
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
