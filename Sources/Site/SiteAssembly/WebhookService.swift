import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import ServiceLifecycle
import SiteCore

/// The site's HTTP client for webhooks: no redirects (a receiver answers where it was
/// subscribed), one deadline per try, the answer's body read and dropped. Connecting and name
/// lookups run on SwiftNIO's event loops and its resolver's own thread, never on Swift's
/// cooperative threads.
final class WebhookHTTPTransport: WebhookTransport {
    let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))

    func post(url: String, headers: [(String, String)], body: [UInt8], timeout: TimeInterval) async throws -> Int {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await client.execute(request, timeout: .milliseconds(Int64(timeout * 1000)))
        _ = try? await response.body.collect(upTo: 65_536)
        return Int(response.status.code)
    }

    func shutdown() async {
        try? await client.shutdown()
    }
}

/// Runs the ``WebhookDispatcher`` in `verifier serve`, until the server shuts down. The HTTP
/// client is made when the service starts and shut down when it ends, so a server that fails
/// before it runs leaves no client behind.
/// Beside it, every 30 s, the ``DoorSilenceWatch`` writes the `silent` alert of a door gone
/// quiet, which the dispatcher then sends.
struct WebhookService: Service {
    let store: any WebhookStore
    let silence: DoorSilenceWatch
    let userAgent: String
    let logger: Logger

    func run() async throws {
        let transport = WebhookHTTPTransport()
        let dispatcher = WebhookDispatcher(store: store, transport: transport, userAgent: userAgent)
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { await dispatcher.run() }
                group.addTask { await watch() }
            }
        }
        await transport.shutdown()
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
