import Foundation
import Logging
import ServiceLifecycle
import SiteCore
import SiteHTTP

/// Runs the reference verifier on 127.0.0.1 (a free port) for the duration of `body`.
public func withReferenceServer<R: Sendable>(
    _ verifier: ReferenceVerifier, limits: ConnectionLimits = ConnectionLimits(), _ body: @Sendable (Int) async throws -> R
) async throws -> R {
    let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
    var logger = Logger(label: "test-verifier")
    logger.logLevel = .warning
    let app = VerifierServer.application(verifier: verifier, host: "127.0.0.1", port: 0, limits: limits, logger: logger) { port in
        continuation.yield(port)
    }
    let group = ServiceGroup(services: [app], gracefulShutdownSignals: [], logger: logger)
    return try await withThrowingTaskGroup(of: R?.self) { tasks in
        tasks.addTask {
            try await group.run()
            return nil
        }
        var iterator = ports.makeAsyncIterator()
        let port = await iterator.next()!
        let result = try await body(port)
        await group.triggerGracefulShutdown()
        for try await _ in tasks {}
        return result
    }
}
