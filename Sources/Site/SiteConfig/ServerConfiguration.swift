import Foundation
import KioskPadConfig
import KioskPadCore
import KioskPadEndpoints
import Yams

/// The reference verifier's own config file (`kioskpad verifier serve --config FILE`),
/// one top-level `server:` section.
public struct VerifierServerConfiguration: Sendable {
    public var host: String
    public var port: Int
    /// Where users and shared state are kept (`store`, `sqlite`, `postgres`).
    public var store: VerifierStoreChoice
    /// Holds the SQLite database unless `sqlite.path` says otherwise.
    public var stateDirectory: String
    public var secret: SecretSource?
    /// The key of users-file lookup tags (`lookup_key_file`, `_env` or `_credential`).
    public var lookupKey: SecretSource?
    public var allowUnsigned: Bool
    public var unlockSeconds: Int?
    public var codeLength: Int
    /// `visitor_pass_max_days`: the longest window a visitor pass may have (default 90).
    public var visitorPassMaxDays = 90
    /// `visitor_pass_max_uses`: the most uses of a pass an API token without the users scope
    /// may issue (default 20; such a token may not issue an unlimited one).
    public var visitorPassMaxUses = 20
    /// `visitor_pass_max_live_per_host`: the most live visitor passes one host may have (default 50).
    public var visitorPassMaxLivePerHost = 50
    /// `visitor_pass_max_live`: the most live visitor passes at the site (default 5,000).
    public var visitorPassMaxLive = 5_000
    /// `check_in_seconds`: how often an adopted door asks the site for a rotation of its
    /// secret (`POST /v1/check-in`; default 60).
    public var checkInSeconds = 60
    public var lockout: LockoutPolicy
    public var maxBodyBytes: Int
    public var maxConnections: Int
    public var maxConnectionsPerSource: Int
    public var requestTimeout: Duration
    public var rejectedPerSource: Int
    /// `events.keep_days`: how long forwarded door events are kept (default 365).
    public var eventsKeepDays: Int = 365
    /// `events.max_records_per_minute` and `events.max_bytes_per_day`: each door's event
    /// quota (defaults 600 and 4,000,000); beyond it `/v1/events` answers 429.
    public var eventsMaxRecordsPerMinute: Int = 600
    public var eventsMaxBytesPerDay: Int = 4_000_000
    /// `console:` the site console in the browser.
    public var console = ConsoleSettings()
    /// `webhooks:` the receivers inside the site's network webhooks may go to.
    public var webhooks = WebhookTargetSettings()
    /// `trusted_proxies`: reverse proxies in front of the doors' listener, whose
    /// `X-Forwarded-For` names the client the per-address limits count.
    public var trustedProxies: [IPAddress] = []
}

extension ConfigLoader {
    public static func loadServer(
        path: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> VerifierServerConfiguration {
        let (text, directory) = try read(path)
        return try parseServer(yaml: text, source: path, baseDirectory: directory, environment: environment)
    }

    public static func parseServer(
        yaml: String, source: String, baseDirectory: String = ".", environment: [String: String] = [:]
    ) throws -> VerifierServerConfiguration {
        let root = try compose(yaml, source: source)
        let log = ProblemLog(source: source, overrides: EnvironmentOverrides(environment: environment))
        let top = MappingReader(root, path: "", log: log)
        if !top.has("server") { log.report("server", "is required: the reference verifier's settings", at: nil) }
        let reader = top.child("server")
        let listen = reader.string("listen", default: "127.0.0.1:8787")
        var host = "127.0.0.1"
        var port = 8787
        if let address = ConfigValues.hostAndPort(listen) {
            (host, port) = address
        } else {
            log.report(reader.keyPath("listen"), "\(ConfigText.quoted(listen)) is not HOST:PORT (e.g. 127.0.0.1:8787)", at: reader.value("listen"))
        }
        let stateDirectory = ConfigValues.resolve(reader.string("state_dir", default: "/var/lib/kioskpad-verifier"), baseDirectory)
        let store = PostgresSection.read(reader, stateDirectory: stateDirectory, baseDirectory: baseDirectory)
        if reader.has("users_file") {
            let file = ConfigValues.resolve(reader.string("users_file", default: ""), baseDirectory)
            log.report(
                reader.keyPath("users_file"),
                "is no longer read: the verifier keeps its users in its database; bring them in once with `kioskpad verifier import --users-file \(file) --config \(source)`, then remove users_file",
                at: reader.value("users_file"))
        }
        let secret = ConfigValues.secretSource(reader, prefix: "secret", baseDirectory: baseDirectory)
        let lookupKey = ConfigValues.secretSource(reader, prefix: "lookup_key", baseDirectory: baseDirectory)
        let allowUnsigned = reader.bool("allow_unsigned", default: false)
        if secret == nil && !allowUnsigned {
            log.report(
                reader.keyPath("secret_file"),
                "a signing secret is required (secret_file, secret_env or secret_credential; `kioskpad verifier secret` makes one), or set allow_unsigned: true",
                at: reader.node)
        }
        let unlock = reader.has("unlock_seconds") ? reader.int("unlock_seconds", default: 5, range: 1...300) : nil
        let codeLength = reader.int("code_length", default: 8, range: 6...12)
        let visitorPassMaxDays = reader.int("visitor_pass_max_days", default: 90, range: 1...3_660)
        let visitorPassMaxUses = reader.int("visitor_pass_max_uses", default: 20, range: 1...10_000)
        let visitorPassMaxLivePerHost = reader.int("visitor_pass_max_live_per_host", default: 50, range: 1...100_000)
        let visitorPassMaxLive = reader.int("visitor_pass_max_live", default: 5_000, range: 1...1_000_000)
        let checkInSeconds = reader.int("check_in_seconds", default: 60, range: 1...3_600)
        let lockout = LockoutSection.read(reader.child("lockout"))
        let maxBody = reader.int("max_body_bytes", default: 16_384, range: 1_024...1_048_576)
        let maxConnections = reader.int("max_connections", default: 512, range: 8...65_536)
        let perSource = reader.int("max_connections_per_source", default: 64, range: 1...65_536)
        let requestTimeout = reader.seconds("request_timeout_s", default: 10, range: 1...300)
        let rejected = reader.int("rejected_per_source", default: 20, range: 1...100_000)
        var keepDays = 365
        var quotaRecords = 600
        var quotaBytes = 4_000_000
        if reader.has("events") {
            let events = reader.child("events")
            keepDays = events.int("keep_days", default: 365, range: 1...36_500)
            quotaRecords = events.int("max_records_per_minute", default: 600, range: 50...1_000_000)
            quotaBytes = events.int("max_bytes_per_day", default: 4_000_000, range: 100_000...10_000_000_000)
            events.finish()
        }
        let console = ConsoleSection.read(reader, baseDirectory: baseDirectory)
        let webhooks = WebhooksSection.read(reader)
        let trustedProxies = TrustedProxiesSection.read(reader)
        if console.enabled && console.port != 0 && console.port == port && console.host == host {
            log.report(
                reader.keyPath("console.listen"), "is the doors' listen address too; give the console its own port (default 8788)",
                at: reader.child("console").value("listen"))
        }
        reader.finish()
        top.finish()
        guard log.problems.isEmpty else { throw ConfigError(problems: log.problems) }
        var configuration = VerifierServerConfiguration(
            host: host, port: port, store: store, stateDirectory: stateDirectory, secret: secret,
            lookupKey: lookupKey, allowUnsigned: allowUnsigned, unlockSeconds: unlock, codeLength: codeLength, lockout: lockout,
            maxBodyBytes: maxBody, maxConnections: maxConnections, maxConnectionsPerSource: perSource,
            requestTimeout: requestTimeout, rejectedPerSource: rejected)
        configuration.eventsKeepDays = keepDays
        configuration.visitorPassMaxDays = visitorPassMaxDays
        configuration.visitorPassMaxUses = visitorPassMaxUses
        configuration.visitorPassMaxLivePerHost = visitorPassMaxLivePerHost
        configuration.visitorPassMaxLive = visitorPassMaxLive
        configuration.checkInSeconds = checkInSeconds
        configuration.eventsMaxRecordsPerMinute = quotaRecords
        configuration.eventsMaxBytesPerDay = quotaBytes
        configuration.console = console
        configuration.trustedProxies = trustedProxies
        configuration.webhooks = webhooks
        return configuration
    }
}
