import Foundation
import SQLKit
import SiteCore

/// The replica's version as a change-log position (schema version 24 and later). A write that
/// changes who may enter sets `kioskpad_replica.pending` (each such table's trigger); when its
/// transaction commits, the version becomes the position of the transaction's last change-log
/// entry, or of one written for it (kind `replica`, cause `door`) when it wrote none. So every
/// version a door holds is a place in the log, and what changed since it is the log after it.
///
/// PostgreSQL settles in the database, at commit (the deferred constraint trigger
/// `kioskpad_replica_settle`, which also sees statements run in autocommit, and takes the
/// change log's order lock, so versions follow commit order across instances). SQLite settles
/// here, as the write transaction's last statements, on its one writer.
enum ReplicaPosition {
    static func settle(on sql: any SQLDatabase, engine: SiteEngine, loggedChange: Bool) async throws {
        guard engine == .sqlite else { return }
        // Before schema version 24 (a migration under way, a test's older schema) there is no
        // pending column and nothing to settle; a failed read leaves SQLite's transaction as it was.
        guard let row = try? await sql.raw("SELECT pending FROM kioskpad_replica WHERE id = 1").first(),
            (try? row.decode(column: "pending", as: Int.self)) == 1
        else { return }
        if !loggedChange {
            try await SQLVerifierStore.insertChangeLog([ChangeLogEntry(kind: .replica, subject: "", cause: .door)], instance: "", order: [], on: sql)
        }
        try await sql.raw("UPDATE kioskpad_replica SET version = (SELECT max(seq) FROM kioskpad_change_log), pending = 0 WHERE id = 1").run()
    }
}
