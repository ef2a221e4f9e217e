import PostgresKit
import PostgresNIO
import SQLKit
import SiteSQL

/// The pool as the site's stores use it: SQLKit statements on a pooled connection, or in a
/// transaction, each within the pool's time limit.
extension PostgresVerifierDatabase: SiteDatabase {
    public var engine: SiteEngine { .postgres }

    public func engineRead<R: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        try await use { try await body($0.sql(queryLogLevel: nil)) }
    }

    public func engineWrite<R: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        try await transaction { try await body($0.sql(queryLogLevel: nil)) }
    }

    public func engineWriteEach<R: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        try await use { try await body($0.sql(queryLogLevel: nil)) }
    }

    public func healthProblem() async -> String? {
        do {
            try await use { [logger] in _ = try await $0.query("SELECT 1", logger: logger) }
            return nil
        } catch {
            return PostgresVerifierDatabase.describe(error)
        }
    }
}
