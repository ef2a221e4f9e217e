import Foundation
import KioskPadConfig
import KioskPadEndpoints

/// Where the reference verifier keeps users and shared state (`server.store`).
public enum VerifierStoreChoice: Sendable, Equatable {
    /// One SQLite file (`server.sqlite`); one instance. The default.
    case sqlite(SQLiteSettings)
    /// A PostgreSQL database shared by every instance (`server.postgres`).
    case postgres(PostgresSettings)
}

/// `server.sqlite`: the reference verifier's own database file.
public struct SQLiteSettings: Sendable, Equatable {
    /// The database file (`path`, default `<state_dir>/verifier.sqlite3`).
    public var path: String
    /// How long a statement waits for a lock another process holds (`busy_timeout_ms`).
    public var busyTimeout: Duration

    public init(path: String, busyTimeout: Duration = .seconds(5)) {
        self.path = path
        self.busyTimeout = busyTimeout
    }
}

/// `server.postgres`: how the reference verifier reaches its database.
public struct PostgresSettings: Sendable, Equatable {
    /// How the connection is protected (`tls`).
    public enum TLSMode: String, Sendable, CaseIterable {
        /// TLS, with the server's certificate checked against `ca_file` (or the system's
        /// roots) and its name against the URL's host.
        case verifyFull = "verify-full"
        /// No TLS: only to a loopback address or a Unix socket, unless `allow_plaintext: true`.
        case disable
    }

    public var host: String
    public var port: Int
    /// The servers after `host:port` in a multi-host URL (`postgres://USER@DB1:5432,DB2:5432/DB`):
    /// a primary and its standbys; the instance uses whichever of them is writable.
    public var otherHosts: [PostgresAddress] = []
    public var user: String
    public var database: String
    public var password: SecretSource?
    public var tls: TLSMode
    public var caFile: String?
    /// The most connections one instance opens (`pool_size`).
    public var poolSize: Int
    /// How long one statement may run, and how long an attempt waits for the database,
    /// before the terminal is answered 503 (`timeout_ms`).
    public var timeout: Duration
    /// Every server, `host:port` first.
    public var addresses: [PostgresAddress] { [PostgresAddress(host: host, port: port)] + otherHosts }
    /// The URL without a password, for messages.
    public var displayURL: String { "postgres://\(user)@\(addresses.map(\.description).joined(separator: ","))/\(database)" }

    public init(
        host: String, port: Int = 5432, user: String, database: String, password: SecretSource? = nil,
        tls: TLSMode = .verifyFull, caFile: String? = nil, poolSize: Int = 10, timeout: Duration = .seconds(2)
    ) {
        self.host = host
        self.port = port
        self.user = user
        self.database = database
        self.password = password
        self.tls = tls
        self.caFile = caFile
        self.poolSize = poolSize
        self.timeout = timeout
    }

    /// `postgres://USER@HOST[:PORT][,HOST[:PORT]...]/DATABASE` (several hosts: a primary and its
    /// standbys, at most 4), or why it is not one.
    static func parseURLWithHosts(_ text: String) -> Result<(hosts: [PostgresAddress], user: String, database: String), URLProblem> {
        guard let schemeEnd = text.range(of: "://"), let at = text[schemeEnd.upperBound...].firstIndex(of: "@"),
            let slash = text[at...].firstIndex(of: "/"), text[at..<slash].contains(",")
        else {
            return parseURL(text).map { ([PostgresAddress(host: $0.host, port: $0.port)], $0.user, $0.database) }
        }
        let list = text[text.index(after: at)..<slash].split(separator: ",", omittingEmptySubsequences: false)
        guard (2...4).contains(list.count) else {
            return .failure(URLProblem("names \(list.count) hosts; a primary and its standbys are 2 to 4 (postgres://USER@DB1:5432,DB2:5432/DATABASE)"))
        }
        var hosts: [PostgresAddress] = []
        var user = ""
        var database = ""
        // The URL for one host: what comes before the host list, the host, what comes after.
        // Built by appending, not as one `+` chain: Debian's Swift 6.2.3 gave up type-checking
        // `String(...) + item + String(...)` here (a Substring among the overloads of `+`).
        let head = String(text[..<text.index(after: at)])
        let tail = String(text[slash...])
        for item in list {
            var single = head
            single.append(contentsOf: item)
            single.append(tail)
            switch parseURL(single) {
            case .failure(let problem):
                return .failure(URLProblem("host \(ConfigText.quoted(String(item))): \(problem.message)"))
            case .success(let parts):
                let address = PostgresAddress(host: parts.host, port: parts.port)
                if hosts.contains(address) { return .failure(URLProblem("names \(address) twice")) }
                hosts.append(address)
                (user, database) = (parts.user, parts.database)
            }
        }
        return .success((hosts, user, database))
    }

    /// `postgres://USER@HOST[:PORT]/DATABASE`, or why it is not one.
    static func parseURL(_ text: String) -> Result<(host: String, port: Int, user: String, database: String), URLProblem> {
        guard let url = URLComponents(string: text), let scheme = url.scheme, ["postgres", "postgresql"].contains(scheme) else {
            return .failure(URLProblem("\(ConfigText.quoted(text)) is not a postgres:// URL (e.g. postgres://kioskpad@127.0.0.1:5432/kioskpad)"))
        }
        guard url.password == nil else {
            return .failure(URLProblem("holds a password; put it in password_file, password_env or password_credential instead"))
        }
        guard let host = url.host, !host.isEmpty, let user = url.user, !user.isEmpty else {
            return .failure(URLProblem("\(ConfigText.quoted(text)) needs a user and a host: postgres://USER@HOST:PORT/DATABASE"))
        }
        let database = String(url.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else {
            return .failure(URLProblem("\(ConfigText.quoted(text)) needs a database name after the host: postgres://USER@HOST:PORT/DATABASE"))
        }
        guard url.query == nil else {
            return .failure(URLProblem("takes no ?options; use server.postgres.tls, ca_file, pool_size and timeout_ms"))
        }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return .success((bare, url.port ?? 5432, user, database))
    }

    struct URLProblem: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }
}

/// One PostgreSQL server of `server.postgres.url`.
public struct PostgresAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    public var description: String { "\(host.contains(":") ? "[\(host)]" : host):\(port)" }
}

enum PostgresSection {
    /// `server.store` and its section: `server.sqlite` (the default) or `server.postgres`.
    static func read(_ server: MappingReader, stateDirectory: String, baseDirectory: String) -> VerifierStoreChoice {
        enum Kind: String, CaseIterable { case sqlite, postgres }
        if server.string("store", default: "sqlite") == "file" {
            server.log.report(
                server.keyPath("store"),
                "file is gone: the verifier keeps its users in its database; use store: sqlite (the default) and bring a users file in with `kioskpad verifier import --users-file FILE --config CONFIG`",
                at: server.value("store"))
            return .sqlite(SQLiteSettings(path: stateDirectory + "/verifier.sqlite3"))
        }
        let kind = server.choice("store", default: Kind.sqlite)
        let sqlite = readSQLite(server, active: kind == .sqlite, stateDirectory: stateDirectory, baseDirectory: baseDirectory)
        guard kind == .postgres else {
            if server.has("postgres") {
                server.log.report(server.keyPath("postgres"), "is only read with store: postgres", at: server.value("postgres"))
            }
            return .sqlite(sqlite)
        }
        guard server.has("postgres") else {
            server.log.report(server.keyPath("postgres"), "is required with store: postgres (url: postgres://USER@HOST:PORT/DATABASE)", at: server.node)
            return .sqlite(sqlite)
        }
        let reader = server.child("postgres")
        reader.declare("password_file", "password_env", "password_credential", "ca_file")
        let urlText = reader.string("url", default: "")
        var settings = PostgresSettings(host: "127.0.0.1", user: "kioskpad", database: "kioskpad")
        if !reader.has("url") {
            reader.log.report(reader.keyPath("url"), "is required (e.g. postgres://kioskpad@127.0.0.1:5432/kioskpad)", at: reader.node)
        } else {
            switch PostgresSettings.parseURLWithHosts(urlText) {
            case .success(let parts):
                (settings.host, settings.port, settings.user, settings.database) = (parts.hosts[0].host, parts.hosts[0].port, parts.user, parts.database)
                settings.otherHosts = Array(parts.hosts.dropFirst())
            case .failure(let problem):
                reader.log.report(reader.keyPath("url"), problem.message, at: reader.value("url"))
            }
        }
        settings.password = ConfigValues.secretSource(reader, prefix: "password", baseDirectory: baseDirectory)
        settings.tls = reader.choice("tls", default: PostgresSettings.TLSMode.verifyFull)
        if reader.has("ca_file") {
            settings.caFile = ConfigValues.resolve(reader.string("ca_file", default: ""), baseDirectory)
            if settings.tls == .disable {
                reader.log.report(reader.keyPath("ca_file"), "is only read with tls: verify-full", at: reader.value("ca_file"))
            }
        }
        let allowPlaintext = reader.bool("allow_plaintext", default: false)
        if settings.tls == .disable && !allowPlaintext && reader.has("url"), let remote = settings.addresses.first(where: { !VerifierURL.isLoopback($0.host) })
        {
            reader.log.report(
                reader.keyPath("tls"),
                "disable sends the database password and users' hashes in the clear to \(remote.host), which is not a loopback address; use tls: verify-full, or set allow_plaintext: true",
                at: reader.value("tls"))
        }
        settings.poolSize = reader.int("pool_size", default: 10, range: 1...200)
        settings.timeout = .milliseconds(reader.int("timeout_ms", default: 2000, range: 100...60_000))
        reader.finish()
        return .postgres(settings)
    }

    /// `server.sqlite` (optional: every key has a default).
    private static func readSQLite(_ server: MappingReader, active: Bool, stateDirectory: String, baseDirectory: String) -> SQLiteSettings {
        var settings = SQLiteSettings(path: stateDirectory + "/verifier.sqlite3")
        guard server.has("sqlite") else { return settings }
        guard active else {
            server.log.report(server.keyPath("sqlite"), "is only read with store: sqlite", at: server.value("sqlite"))
            return settings
        }
        let reader = server.child("sqlite")
        if reader.has("path") {
            settings.path = ConfigValues.resolve(reader.string("path", default: settings.path), baseDirectory)
        }
        settings.busyTimeout = .milliseconds(reader.int("busy_timeout_ms", default: 5000, range: 100...60_000))
        reader.finish()
        return settings
    }
}
