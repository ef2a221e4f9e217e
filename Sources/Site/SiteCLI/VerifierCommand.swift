import ArgumentParser
import Foundation
import KioskPadAccess
import KioskPadCommandLine
import KioskPadConfig
import KioskPadCore
import KioskPadStorage
import Logging
import SiteAssembly
import SiteConfig
import SiteCore

/// `kioskpad verifier`: the site server and its tools, the root command of the
/// `kioskpad-verifier` executable (`kioskpad verifier ...` runs it).
struct VerifierCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kioskpad verifier", abstract: "The reference verifier server and its tools.",
        discussion: "Exit codes: 0 normal, 2 bad usage or config, 1 runtime failure.",
        version: "kioskpad verifier \(KioskPadVersion.version)",
        subcommands: [
            VerifierServeCommand.self, VerifierUserCommand.self, VerifierScheduleCommand.self, VerifierHolidayCommand.self,
            VerifierModeCommand.self, VerifierUnlockCommand.self, VerifierCardPINCommand.self, VerifierSiteCommand.self,
            VerifierTerminalCommand.self, VerifierCodeCommand.self, VerifierLockoutCommand.self,
            VerifierImportCommand.self, VerifierExportCommand.self, VerifierBackupCommand.self, VerifierSecretCommand.self,
            VerifierMigrateCommand.self, VerifierAdminCommand.self, VerifierTokenCommand.self, VerifierWebhookCommand.self, VerifierPublicKeyCommand.self,
            VerifierDoorGroupCommand.self, VerifierLevelCommand.self, VerifierGroupCommand.self, VerifierAccessCommand.self, VerifierVisitorCommand.self,
            VerifierSettingsCommand.self, VerifierReplicaKeyCommand.self, VerifierRolesCommand.self,
        ])
}

/// `kioskpad verifier serve`: POST /verify and GET /healthz.
struct VerifierServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the reference verifier: POST /verify (signed, docs/protocol.md), GET /healthz and GET /metrics.",
        discussion: """
            Opens its database (server.store: sqlite, the default, or postgres), brings the schema up to \
            date, then prints `verifier listening on http://HOST:PORT` (and, with server.console.enabled, \
            `console listening on URL`). Stops on SIGTERM or SIGINT.
            """
    )

    @Option(help: "Verifier config file (YAML, a `server:` section).")
    var config: String

    @Option(help: "Log level on stderr.")
    var logLevel: Logger.Level = .notice

    func run() async throws {
        LoggingSetup.bootstrap(level: logLevel)
        let settings = try ConfigLoader.loadServer(path: config)
        try await VerifierAssembly.serve(settings, logger: Logger(label: "kioskpad.verifier-server")) { address in
            if address.hasPrefix("console ") {
                writeLine("console listening on \(address.dropFirst("console ".count))")
            } else {
                writeLine("verifier listening on \(address)")
            }
        }
    }
}

/// The options of every command that opens the verifier's database.
struct VerifierDatabaseTarget: ParsableArguments {
    /// How long one of these commands lets one database transaction take on PostgreSQL.
    static let commandTimeout: Duration = .seconds(60)

    @Option(help: "Verifier config file (YAML, a `server:` section).")
    var config: String

    func settings() throws -> VerifierServerConfiguration {
        try ConfigLoader.loadServer(path: config)
    }

    /// `settings` as a command uses them: `timeout_ms` keeps a door's answer prompt; an
    /// administrator's command (an import of thousands of users, a migration: each one
    /// transaction) waits as long as it needs, up to a minute.
    static func forCommand(_ settings: VerifierServerConfiguration) -> VerifierServerConfiguration {
        var settings = settings
        if case .postgres(var postgres) = settings.store, postgres.timeout < Self.commandTimeout {
            postgres.timeout = Self.commandTimeout
            settings.store = .postgres(postgres)
        }
        return settings
    }

    /// Runs `body` with the database `settings` names (opened, and its schema brought up to
    /// date, for the command's length).
    func withStore<R>(_ settings: VerifierServerConfiguration? = nil, _ body: (OpenedVerifierStore) async throws -> R) async throws -> R {
        let settings = Self.forCommand(try settings ?? self.settings())
        LoggingSetup.bootstrap(level: .warning)
        return try await VerifierStoreAssembly.withStore(settings, instance: "cli", logger: Logger(label: "kioskpad.verifier-cli"), body)
    }

    /// Runs one read on the database's administration; a database error names the key that
    /// says where it is (exit 1).
    func administer<R>(_ body: (any VerifierAdministration) async throws -> R) async throws -> R {
        try await withStore { opened in
            try await VerifierUserCommand.applying(opened) { try await body(opened.administration) }
        }
    }

    /// Runs `body` with the users' changes (``UsersEditing``, with the site's lookup key when
    /// `lookupKey`: only what writes a hash needs it) as the command line's user, and where
    /// the database is; a refused change is a usage error (exit 2) and is not audited.
    func users<R: Sendable>(lookupKey: Bool = false, _ body: (UsersEditing, String) async throws -> R) async throws -> R {
        let settings = try settings()
        let lookup = lookupKey ? try VerifierAssembly.lookupKey(settings) : nil
        return try await withStore(settings) { opened in
            try await VerifierUserCommand.applying(opened) {
                let users = UsersEditing(
                    administration: opened.administration, replica: opened.replica, lookupKey: lookup,
                    changes: AdministratorChanges(store: opened.store, by: .commandLine()))
                return try await body(users, opened.location)
            }
        }
    }

    /// Runs `body` with the console's administrators' accounts (``AdministratorAccounts``),
    /// as the command line's user, and where the database is; a refused change is a usage
    /// error (exit 2), not audited.
    @discardableResult
    func administrators<R: Sendable>(_ body: (AdministratorAccounts, String) async throws -> R) async throws -> R {
        try await withStore { opened in
            try await VerifierUserCommand.applying(opened) {
                let accounts = AdministratorAccounts(
                    console: opened.console, administration: opened.administration,
                    changes: AdministratorChanges(store: opened.store, by: .commandLine()), location: opened.location)
                return try await body(accounts, opened.location)
            }
        }
    }

    /// Runs `body` with the doors' secrets and lockouts (``DoorKeyChanges``), as the command
    /// line's user; a refused change is a usage error (exit 2), not audited.
    @discardableResult
    func doorKeys<R: Sendable>(_ body: (DoorKeyChanges) async throws -> R) async throws -> R {
        try await withStore { opened in
            try await VerifierUserCommand.applying(opened) {
                try await body(DoorKeyChanges(administration: opened.administration, changes: AdministratorChanges(store: opened.store, by: .commandLine())))
            }
        }
    }

    /// Runs `body` with the door groups, levels and user groups (``AccessGroupChanges``), as
    /// the command line's user; a refused change is a usage error (exit 2), not audited.
    @discardableResult
    func accessGroups<R: Sendable>(_ body: (AccessGroupChanges) async throws -> R) async throws -> R {
        try await withStore { opened in
            try await VerifierUserCommand.applying(opened) {
                try await body(
                    AccessGroupChanges(administration: opened.administration, changes: AdministratorChanges(store: opened.store, by: .commandLine())))
            }
        }
    }

    /// Runs `body` with the doors' rules and calendar (``DoorRuleChanges``), as the command
    /// line's user; a refused change is a usage error (exit 2) and is not audited.
    @discardableResult
    func doorRules<R: Sendable>(_ body: (DoorRuleChanges) async throws -> R) async throws -> R {
        try await withStore { opened in
            try await VerifierUserCommand.applying(opened) {
                try await body(DoorRuleChanges(administration: opened.administration, changes: AdministratorChanges(store: opened.store, by: .commandLine())))
            }
        }
    }

    /// Says on stderr which of `doors` the site has not heard of yet (``KnownDoors``).
    static func warnOfUnknownDoors(_ doors: [String], _ opened: OpenedVerifierStore) async throws {
        warn(try await KnownDoors.notes(naming: doors, store: opened.store, administration: opened.administration))
    }

    /// Says each of a change's notes on stderr, as a warning.
    static func warn(_ notes: [ChangeNote]) {
        for note in notes { FileHandle.standardError.write(Data(("warning: \(note)\n").utf8)) }
    }
}

/// `kioskpad verifier migrate`: creates or upgrades the database's schema.
struct VerifierMigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Create or upgrade the verifier's database schema (SQLite or PostgreSQL); running it again changes nothing.",
        discussion: "`verifier serve` and the other verifier commands do this too when they start.")

    @OptionGroup var target: VerifierDatabaseTarget

    func run() async throws {
        // The migration is one transaction: the command's minute, not a door's `timeout_ms`.
        let settings = VerifierDatabaseTarget.forCommand(try target.settings())
        LoggingSetup.bootstrap(level: .warning)
        let (location, applied, version) = try await VerifierStoreAssembly.migrate(settings, logger: Logger(label: "kioskpad.verifier-migrate"))
        writeLine(
            "schema of \(location) at version \(version)" + (applied.isEmpty ? " (already)" : " (applied \(applied.map(String.init).joined(separator: ", ")))"))
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

    @OptionGroup var target: VerifierDatabaseTarget

    @Option(help: "The user the code belongs to (a user in the verifier's database).")
    var user: String

    @Option(help: "How long the code is valid: 90s, 10m, 2h (up to 7 days).")
    var ttl: String = "10m"

    @Option(help: "The only door (terminal_id) the code opens; tried at another it is denied and not used up. Default: any door the user may open.")
    var door: String?

    func validate() throws {
        if let door, !Identifier.isValid(door) { throw ValidationError("--door '\(door)' must be 1-64 of letters, digits, '.', '_' or '-'") }
    }

    func run() async throws {
        guard let seconds = Self.parseTTL(ttl) else {
            throw UsageError(description: "--ttl '\(ttl)' must be a number with s, m or h, from 30s to 168h")
        }
        let settings = try target.settings()
        let lookupKey = try VerifierAssembly.lookupKey(settings)
        let expires = Date().addingTimeInterval(seconds)
        let code = try await target.withStore(settings) { opened in
            try await VerifierUserCommand.applying(opened) {
                let issuing = CodeIssuing(
                    administration: opened.administration, changes: AdministratorChanges(store: opened.store, by: .commandLine()),
                    codeLength: settings.codeLength, lookupKey: lookupKey)
                let issued: CodeIssuing.Issued
                do {
                    issued = try await issuing.issue(user: user, door: door, expires: expires)
                } catch let error as UserEditError {
                    throw UserEditError(description: "--user: \(error.description)")
                }
                VerifierDatabaseTarget.warn(issued.notes)
                return issued.code
            }
        }
        writeLine(code)
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

/// `kioskpad verifier public-key`: the key doors check their credential replicas with.
struct VerifierPublicKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "public-key",
        abstract: "Print the Ed25519 public key that signs doors' credential replicas (ed25519:BASE64), for verifier.offline.public_key.",
        discussion: "The key pair is made once, in the verifier's database, by whichever comes first: migrate, serve or this command.")
    @OptionGroup var target: VerifierDatabaseTarget

    func run() async throws {
        let key = try await target.withStore { opened in try await VerifierUserCommand.applying(opened) { try await opened.replica.publicKey() } }
        writeLine(key.description)
    }
}
