import SQLKit
import Synchronization

/// The write transaction open in this task on one database: while a ``SiteDatabase/write(_:)``
/// body runs, every read and write the same task makes on the same database joins it (a
/// nested write as a savepoint, rolled back alone when it throws), so a change, its audit
/// record, its webhook messages and its change-log entry commit together or not at all.
///
/// Bound as a task-local value: child tasks inherit it; a task that outlives the transaction
/// finds it closed and opens its own.
final class OpenWriteTransaction: Sendable {
    @TaskLocal static var current: OpenWriteTransaction?

    /// The database (engine object) the transaction is open on.
    let owner: ObjectIdentifier
    let sql: any SQLDatabase
    private let state = Mutex<(open: Bool, savepoints: Int, logged: Bool)>((true, 0, false))

    init(owner: ObjectIdentifier, sql: any SQLDatabase) {
        self.owner = owner
        self.sql = sql
    }

    /// The transaction open on `database` in this task, if one is.
    static func joining(_ database: any SiteDatabase) -> OpenWriteTransaction? {
        guard let current, current.owner == ObjectIdentifier(database), current.state.withLock({ $0.open }) else { return nil }
        return current
    }

    /// Runs `body` as a savepoint of this transaction: released when it returns, rolled back
    /// (and only its own statements) when it throws.
    func savepoint<R: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        let name = state.withLock { state in
            state.savepoints += 1
            return "kioskpad_nested_\(state.savepoints)"
        }
        try await sql.raw("SAVEPOINT \(unsafeRaw: name)").run()
        do {
            let result = try await body(sql)
            try await sql.raw("RELEASE SAVEPOINT \(unsafeRaw: name)").run()
            return result
        } catch {
            _ = try? await sql.raw("ROLLBACK TO SAVEPOINT \(unsafeRaw: name)").run()
            _ = try? await sql.raw("RELEASE SAVEPOINT \(unsafeRaw: name)").run()
            throw error
        }
    }

    /// Notes that a change-log entry was written in this transaction (in a savepoint too: one
    /// rolled back alone throws, and so does the change around it, in every caller).
    func noteLoggedChange() {
        state.withLock { $0.logged = true }
    }

    /// Whether a change-log entry was written in this transaction.
    var loggedChange: Bool { state.withLock { $0.logged } }

    /// Marks the transaction ended: a task still holding it opens its own from now on.
    func close() {
        state.withLock { $0.open = false }
    }
}
