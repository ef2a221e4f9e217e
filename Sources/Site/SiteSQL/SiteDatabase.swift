import SQLKit

/// Which database engine a ``SiteDatabase`` is: the few statements that must differ are
/// chosen by it (``SiteDialect``), everything else is one text for both.
public enum SiteEngine: String, Sendable {
    case sqlite
    case postgres
}

/// A database the site's stores keep their state in: SQLite's file (one instance) or a
/// PostgreSQL pool (several). Every query the stores make goes through ``read(_:)``,
/// ``write(_:)`` and ``writeEach(_:)``, as SQLKit statements whose binds the engine's own
/// placeholders carry; those join a write transaction the task has open on the same database
/// (``OpenWriteTransaction``). An engine implements the three below, each on its own.
public protocol SiteDatabase: AnyObject, Sendable {
    var engine: SiteEngine { get }
    /// Statements outside a write transaction (SQLite: a reader connection; PostgreSQL: a
    /// pooled connection).
    func engineRead<R: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R
    /// One write transaction, committed when `body` returns and rolled back when it throws.
    func engineWrite<R: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R
    /// Statements that each stand alone (no two need to commit together): PostgreSQL runs
    /// them in autocommit, one round trip each, without `BEGIN` and `COMMIT` around them;
    /// SQLite as ``engineWrite(_:)``, on its one writer.
    func engineWriteEach<R: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R
    /// Nil when the database answers now, else why not (for `/healthz`).
    func healthProblem() async -> String?
}

extension SiteDatabase {
    /// Statements outside a write transaction, or inside the one this task has open here.
    public func read<R: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        if let open = OpenWriteTransaction.joining(self) { return try await body(open.sql) }
        return try await engineRead(body)
    }

    /// One write transaction, committed when `body` returns and rolled back when it throws;
    /// inside one this task has open here, a savepoint of it. While `body` runs, the task's
    /// reads and writes on this database join it.
    public func write<R: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        if let open = OpenWriteTransaction.joining(self) { return try await open.savepoint(body) }
        let owner = ObjectIdentifier(self)
        let engine = engine
        return try await engineWrite { sql in
            let open = OpenWriteTransaction(owner: owner, sql: sql)
            defer { open.close() }
            let result = try await OpenWriteTransaction.$current.withValue(open) { try await body(sql) }
            try await ReplicaPosition.settle(on: sql, engine: engine, loggedChange: open.loggedChange)
            return result
        }
    }

    /// Statements that each stand alone (``engineWriteEach(_:)``); inside a write transaction
    /// this task has open here, a savepoint of it.
    public func writeEach<R: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        if let open = OpenWriteTransaction.joining(self) { return try await open.savepoint(body) }
        let engine = engine
        return try await engineWriteEach { sql in
            let result = try await body(sql)
            try await ReplicaPosition.settle(on: sql, engine: engine, loggedChange: false)
            return result
        }
    }

    /// Whether this task has a write transaction open on this database.
    public var hasOpenWriteTransaction: Bool { OpenWriteTransaction.joining(self) != nil }
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
