import Foundation
import Hummingbird
import HummingbirdTLS
import KioskPadConfig
import KioskPadCore
import Logging
import NIOSSL
import ServiceLifecycle
import SiteConfig
import SiteConsole
import SiteHTTP

/// The site console for `verifier serve` (`server.console.enabled: true`): its services
/// over the opened store, and its own listener, over TLS when `server.console.tls` is set.
public enum ConsoleAssembly {
    public static func application(
        _ settings: VerifierServerConfiguration, opened: OpenedVerifierStore, pokeDoors: @escaping @Sendable () -> Void = {}, logger: Logger,
        onListening: @escaping @Sendable (String) -> Void
    ) throws -> any Service {
        let console = settings.console
        var services = ConsoleServices(
            administration: opened.administration, console: opened.console, store: opened.store,
            lookupKey: try VerifierAssembly.lookupKey(settings), codeLength: settings.codeLength, replica: opened.replica, tokens: opened.tokens,
            webhooks: opened.webhooks)
        services.visitorPassLimits = VerifierAssembly.visitorPassLimits(settings)
        services.visitorPassMaxUses = settings.visitorPassMaxUses
        services.webhookTargets = VerifierAssembly.webhookTargets(settings)
        services.pokeDoors = pokeDoors
        services.signIn = try OpenIDAssembly.signIn(console.openID)
        let options = consoleOptions(console)
        let scheme = console.usesTLS ? "https" : "http"
        let host = console.host.contains(":") ? "[\(console.host)]" : console.host
        let onRunning: @Sendable (Int) async -> Void = { port in onListening("console \(scheme)://\(host):\(port)/console/") }
        let limits = ConsoleAssembly.connectionLimits()
        if let certFile = console.tlsCertFile, let keyFile = console.tlsKeyFile {
            let tls: TLSConfiguration
            do {
                tls = TLSConfiguration.makeServerConfiguration(
                    certificateChain: try NIOSSLCertificate.fromPEMFile(certFile).map { .certificate($0) },
                    privateKey: .privateKey(try NIOSSLPrivateKey(file: keyFile, format: .pem)))
                _ = try NIOSSLContext(configuration: tls)
            } catch {
                throw KeyedError(
                    key: "server.console.tls", message: "cannot use \(certFile) and \(keyFile): \(error)",
                    fix: "give a PEM certificate chain and its private key")
            }
            return SiteConsole.application(
                services: services, options: options, server: try .tls(limits.server(), tlsConfiguration: tls), host: console.host, port: console.port,
                logger: logger,
                onRunning: onRunning)
        }
        return SiteConsole.application(
            services: services, options: options, server: limits.server(), host: console.host, port: console.port, logger: logger, onRunning: onRunning)
    }

    /// The console listener's limits, fewer than the doors' (512 in all, 64 per address), so
    /// that console connections can never take the descriptors the doors need: at most 128
    /// open, 32 from one address, 10 s to deliver a whole request (an idle or slow one is
    /// closed).
    static func connectionLimits() -> ConnectionLimits {
        ConnectionLimits(maxConnections: 128, maxPerSource: 32, requestTimeout: .seconds(10))
    }

    static func consoleOptions(_ console: ConsoleSettings) -> ConsoleOptions {
        var options = ConsoleOptions()
        options.tls = console.usesTLS
        options.trustedProxy = console.trustedProxy
        options.sessionIdle = console.sessionIdle
        options.sessionLifetime = console.sessionLifetime
        options.silentAfter = console.silentAfter
        return options
    }
}
