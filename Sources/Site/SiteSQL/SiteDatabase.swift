import SQLKit

/// Which database engine a ``SiteDatabase`` is: the few statements that must differ are
/// chosen by it (``SiteDialect``), everything else is one text for both.
public enum SiteEngine: String, Sendable {
    case sqlite
    case postgres
}

/// A database the site's stores keep their state in: SQLite's file (one instance) or a
/// PostgreSQL pool (several). Every query the stores make goes through these entries,
/// as SQLKit statements whose binds the engine's own placeholders carry.
public protocol SiteDatabase: Sendable {
    var engine: SiteEngine { get }
    /// Statements outside a write transaction (SQLite: a reader connection; PostgreSQL: a
    /// pooled connection).
    func read<R: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R
    /// One write transaction, committed when `body` returns and rolled back when it throws.
    func write<R: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R
    /// Statements that each stand alone (no two need to commit together): PostgreSQL runs
    /// them in autocommit, one round trip each, without `BEGIN` and `COMMIT` around them;
    /// SQLite as ``write(_:)``, on its one writer.
    func writeEach<R: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R
    /// Nil when the database answers now, else why not (for `/healthz`).
    func healthProblem() async -> String?
}

/// A database that is not what this kioskpad expects (a column that does not hold what the
/// schema promises, a schema newer than this build), as a sentence; never a bound value.
public struct SiteStoreFailure: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}

extension SiteDatabase {
    /// The engine's spellings of the statements that differ.
    var dialect: SiteDialect { SiteDialect(engine: engine) }

    /// Runs one statement ending in `RETURNING 1` on its own; how many rows it changed.
    func changed(_ statement: SQLQueryString) async throws -> Int {
        try await writeEach { try await $0.raw(statement).all().count }
    }
}
