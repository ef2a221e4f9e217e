import AsyncHTTPClient
import Foundation
import KioskPadEndpoints
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle
import SiteCore

/// The site's HTTP client for webhooks: no redirects (a receiver answers where it was
/// subscribed), one deadline per try, the answer's body read and dropped. Each try connects to
/// the address the target policy checked (AsyncHTTPClient's `dnsOverride`: TLS still checks
/// the certificate against the URL's host and sends it as SNI), so a name that resolves
/// elsewhere between the check and the connection is not followed. A refused connection fails
/// the try at once (no retry inside it). Connecting runs on SwiftNIO's event loops, the
/// policy's lookups on the `kp-dns` threads, never on Swift's cooperative threads.
final class WebhookHTTPTransport: WebhookTransport {
    func post(to target: WebhookTargetPolicy.Target, headers: [(String, String)], body: [UInt8], timeout: TimeInterval) async throws -> Int {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.connectionPool.idleTimeout = .seconds(1)
        if let address = target.addresses.first, IPAddress(literal: target.host) == nil {
            configuration.dnsOverride = [target.host: address.description]
        }
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            var request = HTTPClientRequest(url: target.url)
            request.method = .POST
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            request.body = .bytes(ByteBuffer(bytes: body))
            let response = try await client.execute(request, timeout: .milliseconds(Int64(timeout * 1000)))
            _ = try? await response.body.collect(upTo: 65_536)
            try? await client.shutdown()
            return Int(response.status.code)
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    func failureClass(_ error: any Error) -> WebhookFailureClass {
        if let client = error as? HTTPClientError, client == .deadlineExceeded || client == .connectTimeout || client == .readTimeout {
            return .timeout
        }
        if error is NIOSSLError || String(reflecting: type(of: error)).contains("BoringSSL") { return .tls }
        return .connection
    }
}

/// Runs the ``WebhookDispatcher`` in `verifier serve`, until the server shuts down. The HTTP
/// client is made when the service starts and shut down when it ends, so a server that fails
/// before it runs leaves no client behind.
/// Beside it, every 30 s, the ``DoorSilenceWatch`` writes the `silent` alert of a door gone
/// quiet, which the dispatcher then sends.
struct WebhookService: Service {
    let store: any WebhookStore
    /// Where a subscription the dispatcher disabled is audited (`webhook_disable`, by `site`).
    let audit: any VerifierStore
    let silence: DoorSilenceWatch
    let userAgent: String
    let targets: WebhookTargets
    let policy: WebhookRetryPolicy
    let logger: Logger

    func run() async throws {
        let transport = WebhookHTTPTransport()
        let (logger, audit, hours) = (self.logger, self.audit, Int(policy.disableAfter / 3_600))
        let site = AdministratorChanges(store: audit, by: .site)
        let dispatcher = WebhookDispatcher(
            store: store, transport: transport, policy: policy, userAgent: userAgent, targets: targets, log: { logger.warning("\($0)") },
            disabled: { name in
                let record = site.record(.webhookDisable, [("webhook", name), ("reason", "its receiver failed every try for \(hours) h")])
                do { try await audit.audit(record) } catch { logger.error("webhook \(name): disabled, but not audited", metadata: ["error": "\(error)"]) }
            })
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { await dispatcher.run() }
                group.addTask { await watch() }
            }
        }
    }

    func watch() async {
        while !Task.isCancelled {
            do {
                for door in try await silence.check() { logger.warning("door \(door) has gone silent (no record or heartbeat within the silent limit)") }
            } catch {
                logger.warning("the check for silent doors failed: \(error)")
            }
            try? await Task.sleep(for: DoorSilenceWatch.interval)
        }
    }
}
