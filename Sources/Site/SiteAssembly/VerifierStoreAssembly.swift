import Foundation
import KioskPadConfig
import KioskPadCore
import Logging
import SiteConfig
import SiteCore
import SitePostgres
import SiteSQL
import SiteSQLite

/// The verifier's database as every server-side command uses it: the store the decisions
/// read and change, its administration (users, codes, lockouts, import, export), where it
/// is for messages and which config key says so.
public struct OpenedVerifierStore: Sendable {
    public let store: any VerifierStore
    public let administration: any VerifierAdministration
    /// The site console's administrators, sessions and history.
    public let console: any ConsoleStore
    /// The management API's tokens (`verifier token`, `/api/v1/`).
    public let tokens: any APITokenStore
    /// Webhook subscriptions and their delivery queue (`verifier webhook`, `/api/v1/webhooks`).
    public let webhooks: any WebhookStore
    /// Doors' credential replicas: their version and signing key.
    public let replica: any ReplicaKeeping
    /// The file's path or the database's URL (no password).
    public let location: String
    /// `server.sqlite.path` or `server.postgres.url`.
    public let configKey: String
    /// The connection pool's state now (PostgreSQL), for `/metrics`.
    public let pool: (@Sendable () -> (inUse: Int, waiting: Int, size: Int))?
    /// Writes a consistent copy to a new file (SQLite); nil for PostgreSQL (`pg_dump`).
    public let backup: (@Sendable (String) async throws -> Void)?
}

/// Opens the store a verifier config names, for as long as `body` runs.
public enum VerifierStoreAssembly {
    /// How much may wait per webhook subscription (`server.webhooks.max_pending`, `_bytes`).
    static func webhookQueue(_ settings: VerifierServerConfiguration) -> WebhookQueueLimits {
        WebhookQueueLimits(maxPending: settings.webhooks.maxPending, maxPendingBytes: settings.webhooks.maxPendingBytes)
    }

    /// Opens `settings.store`: the SQLite file (made, as its owner, and migrated when
    /// `migrate`) or the PostgreSQL pool (migrated when `migrate`). `instance` names this
    /// process in audit rows. Errors name `server.sqlite.path` or `server.postgres.url`.
    public static func withStore<R>(
        _ settings: VerifierServerConfiguration, instance: String, logger: Logger, migrate: Bool = true,
        _ body: (OpenedVerifierStore) async throws -> R
    ) async throws -> R {
        switch settings.store {
        case .sqlite(let sqlite):
            return try await withSQLite(sqlite, logger: logger, migrate: migrate) { database in
                let directory = SQLUserDirectory(database: database, location: sqlite.path, configKey: "server.sqlite.path")
                if migrate { _ = try await directory.signingKey() }
                return try await body(
                    OpenedVerifierStore(
                        store: SQLVerifierStore(database: database, instance: instance, webhookQueue: webhookQueue(settings)),
                        administration: directory, console: SQLConsoleStore(database: database), tokens: SQLConsoleStore(database: database),
                        webhooks: SQLWebhookStore(database: database), replica: directory,
                        location: sqlite.path,
                        configKey: "server.sqlite.path",
                        pool: nil, backup: { try await database.backup(to: $0) }))
            }
        case .postgres(let postgres):
            return try await withPostgresDatabase(postgres, logger: logger, migrate: migrate) { database in
                let directory = SQLUserDirectory(database: database, location: postgres.displayURL, configKey: "server.postgres.url")
                if migrate { _ = try await directory.signingKey() }
                return try await body(
                    OpenedVerifierStore(
                        store: SQLVerifierStore(database: database, instance: instance, webhookQueue: webhookQueue(settings)),
                        administration: directory,
                        console: SQLConsoleStore(database: database), tokens: SQLConsoleStore(database: database),
                        webhooks: SQLWebhookStore(database: database), replica: directory,
                        location: postgres.displayURL, configKey: "server.postgres.url", pool: { database.poolUsage }, backup: nil))
            }
        }
    }

    /// Brings the schema up to date; returns where, the versions applied and the version now.
    public static func migrate(_ settings: VerifierServerConfiguration, logger: Logger) async throws -> (location: String, applied: [Int], version: Int) {
        switch settings.store {
        case .sqlite(let sqlite):
            return try await withSQLite(sqlite, logger: logger, migrate: false) { database in
                let applied = try await sqliteStep(sqlite) { try await SiteMigrations.apply(on: database, location: sqlite.path) }
                _ = try await SQLUserDirectory(database: database, location: sqlite.path, configKey: "server.sqlite.path").signingKey()
                return (sqlite.path, applied, SiteMigrations.latestVersion)
            }
        case .postgres(let postgres):
            return try await withPostgresDatabase(postgres, logger: logger, migrate: false) { database in
                do {
                    let applied = try await SiteMigrations.apply(on: database, location: postgres.displayURL)
                    _ = try await SQLUserDirectory(database: database, location: postgres.displayURL, configKey: "server.postgres.url").signingKey()
                    return (postgres.displayURL, applied, SiteMigrations.latestVersion)
                } catch {
                    throw KeyedError(
                        key: "server.postgres.url", message: "cannot migrate \(postgres.displayURL): \(PostgresVerifierDatabase.describe(error))",
                        kind: .unavailable(retryable: true))
                }
            }
        }
    }

    /// Opens the SQLite file as its owner (``DatabaseOwner``), runs `body`, closes it.
    private static func withSQLite<R>(
        _ settings: SQLiteSettings, logger: Logger, migrate: Bool, _ body: (SQLiteVerifierDatabase) async throws -> R
    ) async throws -> R {
        try DatabaseOwner.become(ownerOf: settings.path)
        let database = try await sqliteStep(settings) {
            try await SQLiteVerifierDatabase.open(path: settings.path, busyTimeout: settings.busyTimeout, logger: logger)
        }
        do {
            if migrate { _ = try await sqliteStep(settings) { try await SiteMigrations.apply(on: database, location: settings.path) } }
            let result = try await body(database)
            await database.close()
            return result
        } catch {
            await database.close()
            throw error
        }
    }

    /// Runs `step`; a database failure becomes an error naming `server.sqlite.path` (exit 1).
    private static func sqliteStep<R>(_ settings: SQLiteSettings, _ step: () async throws -> R) async throws -> R {
        do {
            return try await step()
        } catch let failure as SQLiteVerifierDatabase.Failure {
            throw KeyedError(key: "server.sqlite.path", message: failure.description, kind: .unavailable(retryable: false))
        } catch let failure as SiteStoreFailure {
            throw KeyedError(key: "server.sqlite.path", message: failure.description, kind: .unavailable(retryable: false))
        }
    }
}
