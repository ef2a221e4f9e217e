import Foundation
import KeypadCore
import KeypadVerifier
import KioskPadVerifierServer
import Logging
import ServiceLifecycle

/// The reference verifier serving on 127.0.0.1 (a free port) for the rest of the benchmark
/// process, signed with a fresh secret, with an in-memory replay cache.
public struct LoopbackVerifier: Sendable {
    public let port: Int
    public let secret: WebhookSecret

    public static func start(users: [UserRecord]) async throws -> LoopbackVerifier {
        let secret = WebhookSecret.generate()
        let reference = ReferenceVerifier(
            settings: .init(secret: secret), users: UsersFile(users: users), codes: nil, audit: nil,
            replays: try ReplayLog(path: nil, capacity: 1_000_000))
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = VerifierServer.application(verifier: reference, host: "127.0.0.1", port: 0, logger: logger) {
            continuation.yield($0)
        }
        let group = ServiceGroup(services: [app], gracefulShutdownSignals: [], logger: logger)
        Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        return LoopbackVerifier(port: await iterator.next()!, secret: secret)
    }
}
