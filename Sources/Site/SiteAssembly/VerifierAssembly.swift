import Crypto
import Foundation
import Hummingbird
import KioskPadAccess
import KioskPadConfig
import KioskPadCore
import Logging
import NIOCore
import ServiceLifecycle
import SiteConfig
import SiteCore
import SiteHTTP

/// The composition root of the server side, as ``DoorAssembly`` is of the terminal's:
/// turns a verifier config into its store, the decisions over it and the running HTTP
/// application. A new store, API or console page is added here, in one place.
public enum VerifierAssembly {
    /// Runs `kioskpad verifier serve` for `settings` until SIGTERM or SIGINT: opens and
    /// migrates the store, then serves (and the site console, when enabled, on its own
    /// listener). `onListening` is told each address once it listens: the doors' URL, and
    /// the console's as `console URL`.
    /// From SIGTERM it has 10 s to stop (``StopDeadline``), inside the Debian unit's 15 s.
    public static func serve(_ settings: VerifierServerConfiguration, logger: Logger, onListening: @escaping @Sendable (String) -> Void) async throws {
        let verifierSettings = try decisionSettings(settings)
        let deadline = StopDeadline(limit: StopDeadline.limit, logger: logger)
        deadline.arm()
        try await VerifierStoreAssembly.withStore(settings, instance: "\(settings.host):\(settings.port)", logger: logger) { opened in
            if let warning = try await doorIdentityWarning(opened.administration) { logger.warning("\(warning)") }
            _ = try await opened.replica.signingKey()
            let watch = doorWatch(opened)
            let app = buildApplication(
                settings, verifier: ReferenceVerifier(settings: verifierSettings, store: opened.store), opened: opened, watch: watch, logger: logger
            ) {
                port in
                let host = settings.host
                onListening("http://\(host.contains(":") ? "[\(host)]" : host):\(port)")
            }
            let pruning = EventRetentionService(store: opened.store, keepDays: settings.eventsKeepDays, logger: logger)
            let webhooks = WebhookService(
                store: opened.webhooks, audit: opened.store, silence: DoorSilenceWatch(store: opened.store, silentAfter: settings.console.silentAfter),
                userAgent: "kioskpad-verifier/\(KioskPadVersion.version)", targets: webhookTargets(settings),
                policy: WebhookRetryPolicy(disableAfter: TimeInterval(settings.webhooks.disableAfterHours) * 3_600), logger: logger)
            var services: [(String, any Service)] = [("doors' HTTP server", app), ("event retention", pruning), ("webhooks", webhooks)]
            if settings.console.enabled {
                services.append(
                    ("console", try ConsoleAssembly.application(settings, opened: opened, pokeDoors: watch.poke, logger: logger, onListening: onListening)))
            }
            let group = ServiceGroup(
                services: services.map { DeadlineCountedService(name: $0.0, service: $0.1, deadline: deadline) }, gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger)
            do {
                try await group.run()
            } catch let error as IOError where error.errnoCode == EADDRINUSE || error.errnoCode == EACCES || error.errnoCode == EADDRNOTAVAIL {
                throw KeyedError(
                    key: settings.console.enabled ? "server.listen or server.console.listen" : "server.listen",
                    message:
                        "cannot listen on \(settings.host):\(settings.port)\(settings.console.enabled ? " or \(settings.console.host):\(settings.console.port)" : ""): \(error.description)",
                    fix: "pick a free port or an address of this machine", kind: .unavailable(retryable: true))
            }
        }
    }

    /// Where the site may send webhooks: public addresses, and what `server.webhooks` allows.
    public static func webhookTargets(_ settings: VerifierServerConfiguration) -> WebhookTargets {
        WebhookTargets(policy: WebhookTargetPolicy(allowTargets: settings.webhooks.allowTargets, allowHTTP: settings.webhooks.allowHTTP))
    }

    /// How far visitor passes may go: `server.visitor_pass_max_days`, `_max_live_per_host`, `_max_live`.
    public static func visitorPassLimits(_ settings: VerifierServerConfiguration) -> VisitorPassLimits {
        VisitorPassLimits(maxDays: settings.visitorPassMaxDays, maxLivePerHost: settings.visitorPassMaxLivePerHost, maxLive: settings.visitorPassMaxLive)
    }

    /// Door rules are only as strong as the door's identity: the doors that rules name but
    /// that sign with the site secret, which any terminal holding it could claim.
    public static func doorIdentityWarning(_ administration: any VerifierAdministration) async throws -> String? {
        let named = try await administration.siteRules().doorsNamed
        let own = Set(try await administration.doors().map(\.terminalID))
        let shared = named.filter { !own.contains($0) }
        guard !shared.isEmpty else { return nil }
        return
            "access rules name door\(shared.count == 1 ? "" : "s") \(shared.joined(separator: ", ")) without a secret of \(shared.count == 1 ? "its" : "their") own: "
            + "any terminal with the site secret can claim to be \(shared.count == 1 ? "it" : "them"); give each one with `kioskpad verifier terminal add ID`"
    }

    /// What tells doors holding the push channel of a new replica version or remote command:
    /// one per server, shared by the doors' listener and the console (which pokes it).
    public static func doorWatch(_ opened: OpenedVerifierStore) -> ReplicaVersionWatch {
        let (replica, commands) = (opened.replica, opened.administration)
        return ReplicaVersionWatch(
            read: { try await replica.replicaVersion() }, commands: { try await commands.liveDoorCommandsIssued(now: Date()) },
            checkIns: { try await commands.checkInSignals() })
    }

    /// The HTTP application over an opened store: `/verify`, `/healthz`, `/metrics`.
    public static func buildApplication(
        _ settings: VerifierServerConfiguration, verifier: ReferenceVerifier, opened: OpenedVerifierStore, watch: ReplicaVersionWatch? = nil,
        logger: Logger, onRunning: @escaping @Sendable (Int) async -> Void
    ) -> some ApplicationProtocol {
        let limits = ConnectionLimits(
            maxConnections: settings.maxConnections, maxPerSource: settings.maxConnectionsPerSource, requestTimeout: settings.requestTimeout)
        let events = DoorEventIntake(
            store: opened.store, siteSecret: verifier.settings.secret, keepDays: settings.eventsKeepDays,
            quota: EventQuota(limits: .init(recordsPerMinute: settings.eventsMaxRecordsPerMinute, bytesPerDay: settings.eventsMaxBytesPerDay)),
            commandResults: opened.administration)
        let credentials = CredentialService(
            keeping: opened.replica, administration: opened.administration, store: opened.store, siteSecret: verifier.settings.secret)
        let replica = opened.replica
        let doorWatch = DoorWatch(
            watch: watch ?? Self.doorWatch(opened), store: opened.store, siteSecret: verifier.settings.secret,
            commands: (opened.administration, replica))
        return VerifierServer.application(
            verifier: verifier, events: events, credentials: credentials, pairing: (opened.administration, opened.store),
            checkIn: DoorCheckIn(
                store: opened.store, settings: opened.administration, replica: opened.replica, siteSecret: verifier.settings.secret,
                interval: settings.checkInSeconds), watch: doorWatch, host: settings.host,
            port: settings.port,
            limits: limits, trustedProxies: settings.trustedProxies,
            metrics: VerifierMetrics(pool: opened.pool), logger: logger, onRunning: onRunning)
    }

    /// What the decisions need from the config: the signing secret and lookup key (read
    /// now), unlock time, lockout and limits. Errors name the key.
    public static func decisionSettings(_ settings: VerifierServerConfiguration) throws -> ReferenceVerifier.Settings {
        let secret = try settings.secret.map { try WebhookSecret(configured: $0, key: "server.secret") }
        return ReferenceVerifier.Settings(
            secret: secret, unlockSeconds: settings.unlockSeconds, lockout: settings.lockout,
            maxBodyBytes: settings.maxBodyBytes, rejectionLimit: settings.rejectedPerSource, lookupKey: try lookupKey(settings))
    }

    /// The key of the users' lookup tags, if configured, or an error naming its key.
    public static func lookupKey(_ settings: VerifierServerConfiguration) throws -> LookupKey? {
        try settings.lookupKey.map { source in
            do {
                return try LookupKey(text: try source.read())
            } catch {
                throw KeyedError(key: source.configKey("server.lookup_key"), message: "\(error)")
            }
        }
    }
}
