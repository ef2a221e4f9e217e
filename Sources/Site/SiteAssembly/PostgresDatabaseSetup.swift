import Foundation
import KioskPadAccess
import KioskPadConfig
import KioskPadCore
import Logging
import NIOSSL
import SiteConfig
import SitePostgres
import SiteSQL

/// Opens the verifier's database from `server.postgres`, runs its connection pool while
/// `body` runs, and first (unless `migrate` is false) brings the schema up to date
/// (migrations are a no-op when it is).
/// Errors name `server.postgres`; a database that cannot be reached is retryable (systemd
/// starts the verifier again).
func withPostgresDatabase<R>(
    _ settings: PostgresSettings, logger: Logger, migrate: Bool = true, _ body: (PostgresVerifierDatabase) async throws -> R
) async throws -> R {
    let (password, tls) = try credentials(settings)
    if let tls {
        do {
            try await PostgresVerifierDatabase.checkTLSOffered(
                host: settings.host, port: settings.port, user: settings.user, database: settings.database, password: password, tls: tls,
                timeout: settings.timeout, logger: logger)  // the first server; the others are kept alike
        } catch let failure as PostgresVerifierDatabase.Failure {
            throw KeyedError(
                key: "server.postgres.tls", message: "\(failure.description); kioskpad requires it (tls: verify-full)",
                fix: "turn ssl on in that server's postgresql.conf, or, for a server on loopback, set server.postgres.tls: disable")
        }
    }
    let database = PostgresVerifierDatabase(
        servers: settings.addresses.map { ($0.host, $0.port) }, user: settings.user, database: settings.database, password: password,
        tls: tls, poolSize: settings.poolSize, timeout: settings.timeout, logger: logger)
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await database.run() }
        defer { group.cancelAll() }
        // A primary and its standbys: use the writable one from the start.
        await database.findWritable()
        do {
            if migrate { try await SiteMigrations.apply(on: database, location: settings.displayURL) }
        } catch {
            throw KeyedError(
                key: "server.postgres.url", message: "cannot prepare the database \(settings.displayURL): \(PostgresVerifierDatabase.describe(error))",
                fix: "check that PostgreSQL runs there, the user and password, and tls", kind: .unavailable(retryable: true))
        }
        return try await body(database)
    }
}

/// The password, read now, and TLS with the certificate checked (nil: tls: disable).
private func credentials(_ settings: PostgresSettings) throws -> (password: String?, tls: TLSConfiguration?) {
    let password = try settings.password.map { try $0.text(key: "server.postgres.password").trimmingCharacters(in: .newlines) }
    var tls: TLSConfiguration?
    if settings.tls == .verifyFull {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let caFile = settings.caFile {
            guard FileManager.default.isReadableFile(atPath: caFile) else {
                throw KeyedError(key: "server.postgres.ca_file", message: "cannot read \(caFile)")
            }
            configuration.trustRoots = .file(caFile)
        }
        tls = configuration
    }
    return (password, tls)
}
