import ArgumentParser
import Foundation
import KeypadCore
import KeypadVerifier
import KioskPadAssembly
import KioskPadConfig
import KioskPadVerifierServer
import Logging
import NIOCore
import ReferenceVerifierCore
import ReferenceVerifierPostgres
import ServiceLifecycle

/// `kioskpad verifier`: the reference verifier and its tools.
struct VerifierCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verifier", abstract: "The reference verifier server and its tools.",
        subcommands: [
            VerifierServeCommand.self, VerifierUserCommand.self, VerifierCodeCommand.self, VerifierSecretCommand.self,
            VerifierMigrateCommand.self,
        ])
}

/// `kioskpad verifier serve`: POST /verify and GET /healthz.
struct VerifierServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the reference verifier: POST /verify (signed, CONTRACTS section 2), GET /healthz and GET /metrics.",
        discussion: "Prints `verifier listening on http://HOST:PORT` when ready. Stops on SIGTERM or SIGINT."
    )

    @Option(help: "Verifier config file (YAML, a `server:` section).")
    var config: String

    @Option(help: "Log level on stderr.")
    var logLevel: Logger.Level = .notice

    func run() async throws {
        LoggingSetup.bootstrap(level: logLevel)
        let logger = Logger(label: "kioskpad.verifier-server")
        let settings = try ConfigLoader.loadServer(path: config)
        let secret = try settings.secret.map { source in
            do {
                return try WebhookSecret(reading: source)
            } catch {
                throw KeyedError(key: TerminalAssembly.key("server.secret", source), message: "\(error)")
            }
        }
        let verifierSettings = ReferenceVerifier.Settings(
            secret: secret, unlockSeconds: settings.unlockSeconds, lockout: settings.lockout,
            maxBodyBytes: settings.maxBodyBytes, rejectionLimit: settings.rejectedPerSource, lookupKey: try loadLookupKey(settings))
        switch settings.store {
        case .file:
            try await serve(ReferenceVerifier(settings: verifierSettings, store: try fileStore(settings)), settings, metrics: VerifierMetrics(), logger: logger)
        case .postgres(let postgres):
            try await withVerifierDatabase(postgres, logger: logger) { database in
                let store = PostgresVerifierStore(database: database, instance: "\(settings.host):\(settings.port)")
                let metrics = VerifierMetrics(pool: { database.poolUsage })
                try await serve(ReferenceVerifier(settings: verifierSettings, store: store), settings, metrics: metrics, logger: logger)
            }
        }
    }

    /// Users file, codes, replay log and audit in `state_dir`.
    private func fileStore(_ settings: VerifierServerConfiguration) throws -> FileVerifierStore {
        let users = try watchUsers(settings)
        do {
            try FileManager.default.createDirectory(atPath: settings.stateDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            return FileVerifierStore(
                users: { try users.current() }, codes: OneTimeCodeStore(path: settings.codesFile),
                audit: try AuditLog(path: settings.auditLog), replays: try ReplayLog(path: settings.replayLog))
        } catch {
            throw KeyedError(key: "server.state_dir", message: "cannot write \(settings.stateDirectory): \(error)", kind: .unavailable(retryable: true))
        }
    }

    /// Serves HTTP until SIGTERM or SIGINT.
    private func serve(_ verifier: ReferenceVerifier, _ settings: VerifierServerConfiguration, metrics: VerifierMetrics, logger: Logger) async throws {
        let host = settings.host
        let limits = ConnectionLimits(
            maxConnections: settings.maxConnections, maxPerSource: settings.maxConnectionsPerSource,
            requestTimeout: settings.requestTimeout)
        let app = VerifierServer.application(verifier: verifier, host: host, port: settings.port, limits: limits, metrics: metrics, logger: logger) { port in
            writeLine("verifier listening on http://\(host.contains(":") ? "[\(host)]" : host):\(port)")
        }
        let group = ServiceGroup(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        do {
            try await group.run()
        } catch let error as IOError where error.errnoCode == EADDRINUSE || error.errnoCode == EACCES || error.errnoCode == EADDRNOTAVAIL {
            throw KeyedError(
                key: "server.listen", message: "cannot listen on \(host):\(settings.port): \(error.description)",
                fix: "pick a free port or an address of this machine", kind: .unavailable(retryable: true))
        }
    }
}

/// `kioskpad verifier migrate`: creates or upgrades the database's schema.
struct VerifierMigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Create or upgrade the verifier's PostgreSQL schema (server.store: postgres); running it again changes nothing.",
        discussion: "`verifier serve` and the user and code commands do this too when they start.")

    @Option(help: "Verifier config file (YAML, a `server:` section).")
    var config: String

    func run() async throws {
        let settings = try ConfigLoader.loadServer(path: config)
        guard case .postgres(let postgres) = settings.store else {
            throw KeyedError(key: "server.store", message: "is file: there is no schema to migrate", fix: "set store: postgres and server.postgres")
        }
        LoggingSetup.bootstrap(level: .warning)
        try await withVerifierDatabase(postgres, logger: Logger(label: "kioskpad.verifier-migrate"), migrate: false) { database in
            let applied: [Int]
            do {
                applied = try await PostgresMigrations.apply(on: database)
            } catch {
                throw KeyedError(
                    key: "server.postgres.url", message: "cannot migrate \(postgres.displayURL): \(PostgresVerifierDatabase.describe(error))",
                    kind: .unavailable(retryable: true))
            }
            writeLine("schema of \(postgres.displayURL) at version \(PostgresMigrations.latestVersion)"
                + (applied.isEmpty ? " (already)" : " (applied \(applied.map(String.init).joined(separator: ", ")))"))
        }
    }
}

/// `kioskpad verifier code`: single-use codes.
struct VerifierCodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "code", abstract: "Single-use codes.", subcommands: [VerifierCodeIssueCommand.self])
}

/// `kioskpad verifier code issue`: prints a fresh code once; only its hash is stored.
struct VerifierCodeIssueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "issue",
        abstract: "Issue a single-use code for a user: printed once, stored only as a salted hash, valid for --ttl.")

    @Option(help: "Verifier config file (YAML, a `server:` section).")
    var config: String

    @Option(help: "The user the code belongs to (a name in the users file).")
    var user: String

    @Option(help: "How long the code is valid: 90s, 10m, 2h (up to 7 days).")
    var ttl: String = "10m"

    func run() async throws {
        guard let seconds = Self.parseTTL(ttl) else {
            throw UsageError(description: "--ttl '\(ttl)' must be a number with s, m or h, from 30s to 168h")
        }
        let settings = try ConfigLoader.loadServer(path: config)
        switch settings.store {
        case .file:
            let users = try loadUsers(settings)
            guard users.users.contains(where: { $0.name == user }) else {
                throw UsageError(description: "--user '\(user)' is not in \(settings.usersFile)")
            }
            try FileManager.default.createDirectory(atPath: settings.stateDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let code = try OneTimeCodeStore(path: settings.codesFile).issue(user: user, ttl: seconds, length: settings.codeLength)
            code.withASCIIBytes { writeLine(String(decoding: $0, as: UTF8.self)) }
        case .postgres(let postgres):
            LoggingSetup.bootstrap(level: .warning)
            try await withVerifierDatabase(postgres, logger: Logger(label: "kioskpad.verifier-code")) { database in
                let code = OneTimeCodeStore.newCode(length: settings.codeLength)
                let hash = try PINHash.make(pin: code, iterations: OneTimeCodeStore.hashIterations)
                let directory = PostgresUserDirectory(database: database, location: postgres.displayURL)
                do {
                    try await directory.issueCode(user: user, hash: hash, expires: Date().addingTimeInterval(seconds))
                } catch let error as UsersFileEditor.EditError {
                    throw UsageError(description: error.description)
                }
                code.withASCIIBytes { writeLine(String(decoding: $0, as: UTF8.self)) }
            }
        }
    }

    static func parseTTL(_ text: String) -> TimeInterval? {
        guard let unit = text.last, let number = Double(text.dropLast()) else { return nil }
        let factor: Double
        switch unit {
        case "s": factor = 1
        case "m": factor = 60
        case "h": factor = 3600
        default: return nil
        }
        let seconds = number * factor
        return (30...(168 * 3600)).contains(seconds) ? seconds : nil
    }
}

/// `kioskpad verifier secret`: a new Standard Webhooks secret for terminals and the server.
struct VerifierSecretCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "secret",
        abstract: "Print a new random signing secret (whsec_...) for verifier.secret_file and server.secret_file.",
        discussion: "Example: (umask 077; kioskpad verifier secret > /etc/kioskpad/verifier.secret)")

    func run() async throws {
        writeLine(WebhookSecret.generate().text)
    }
}

/// The key of the users file's lookup tags, if configured, or an error naming its key.
func loadLookupKey(_ settings: VerifierServerConfiguration) throws -> LookupKey? {
    try settings.lookupKey.map { source in
        do {
            return try LookupKey(text: try source.read())
        } catch {
            throw KeyedError(key: TerminalAssembly.key("server.lookup_key", source), message: "\(error)")
        }
    }
}

/// The server's users file, read again when it changes, or a usage error naming `server.users_file`.
func watchUsers(_ settings: VerifierServerConfiguration) throws -> UsersFileWatcher {
    do {
        return try UsersFileWatcher(path: settings.usersFile)
    } catch {
        throw KeyedError(key: "server.users_file", message: "\(error)")
    }
}

/// The server's users file, or a usage error naming `server.users_file`.
func loadUsers(_ settings: VerifierServerConfiguration) throws -> UsersFile {
    do {
        return try UsersFile.load(path: settings.usersFile)
    } catch {
        throw KeyedError(key: "server.users_file", message: "\(error)")
    }
}
