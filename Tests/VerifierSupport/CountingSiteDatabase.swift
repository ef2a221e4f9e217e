import Logging
import NIOCore
import SQLKit
import SiteCore
import SiteSQL
import Synchronization

/// A ``SiteDatabase`` that counts what a store asks of the one it wraps: statements read,
/// statements written and write transactions. A PostgreSQL statement is one round trip, and
/// a write transaction two more (`BEGIN`, `COMMIT`), so the counts say what a request costs
/// the database whichever engine is under it.
public final class CountingSiteDatabase: SiteDatabase {
    /// What was asked since the last ``reset()``.
    public struct Counts: Sendable, Equatable, CustomStringConvertible {
        public var reads = 0
        public var writes = 0
        public var transactions = 0
        public init(reads: Int = 0, writes: Int = 0, transactions: Int = 0) {
            self.reads = reads
            self.writes = writes
            self.transactions = transactions
        }
        public var description: String { "\(reads) statements read, \(writes) written in \(transactions) transactions" }
    }

    private let base: any SiteDatabase
    private let counted = Mutex(Counts())

    public init(_ base: any SiteDatabase) { self.base = base }

    public var engine: SiteEngine { base.engine }

    public var counts: Counts { counted.withLock { $0 } }

    public func reset() { counted.withLock { $0 = Counts() } }

    public func engineRead<R: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        try await base.engineRead { sql in try await body(Statements(base: sql, counting: self, as: .read)) }
    }

    public func engineWrite<R: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        counted.withLock { $0.transactions += 1 }
        return try await base.engineWrite { sql in try await body(Statements(base: sql, counting: self, as: .write)) }
    }

    public func engineWriteEach<R: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        try await base.engineWriteEach { sql in try await body(Statements(base: sql, counting: self, as: .write)) }
    }

    public func healthProblem() async -> String? { await base.healthProblem() }

    fileprivate enum Kind: Sendable { case read, write }

    fileprivate func count(_ kind: Kind) {
        counted.withLock { counts in
            switch kind {
            case .read: counts.reads += 1
            case .write: counts.writes += 1
            }
        }
    }

    /// The wrapped engine's connection, each statement counted.
    private struct Statements: SQLDatabase {
        let base: any SQLDatabase
        let counting: CountingSiteDatabase
        let kind: Kind

        init(base: any SQLDatabase, counting: CountingSiteDatabase, as kind: Kind) {
            self.base = base
            self.counting = counting
            self.kind = kind
        }

        var logger: Logger { base.logger }
        var eventLoop: any EventLoop { base.eventLoop }
        var version: (any SQLDatabaseReportedVersion)? { base.version }
        var dialect: any SQLDialect { base.dialect }
        var queryLogLevel: Logger.Level? { base.queryLogLevel }

        func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
            counting.count(kind)
            return base.execute(sql: query, onRow)
        }

        func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
            counting.count(kind)
            try await base.execute(sql: query, onRow)
        }
    }
}

extension StoreUnderTest {
    /// This store's database, counted, and its stores over it (the same rows as ``store`` and ``administration``).
    public func counted() throws -> (database: CountingSiteDatabase, store: SQLVerifierStore, administration: SQLUserDirectory) {
        guard let console = console as? SQLConsoleStore else { throw SiteStoreFailure("not a SQL store") }
        let database = CountingSiteDatabase(console.database)
        let location = sqlitePath ?? "postgres"
        let key = kind == .sqlite ? "server.sqlite.path" : "server.postgres.url"
        return (
            database, SQLVerifierStore(database: database, instance: "test"),
            SQLUserDirectory(database: database, location: location, configKey: key)
        )
    }
}
