import Foundation
import Logging
import ServiceLifecycle
import SiteCore

/// Deletes forwarded door events older than `server.events.keep_days`, and any dated more
/// than the allowed skew in the future (a database from before such records were refused),
/// at start and then hourly, in the background of `verifier serve`. A failure is logged and tried again at the
/// next round; it never stops the server.
struct EventRetentionService: Service {
    let store: any VerifierStore
    let keepDays: Int
    let logger: Logger
    var interval: Duration = .seconds(3600)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await prune(now: Date())
                try? await Task.sleep(for: interval)
            }
        }
    }

    /// One round: the events older than `keepDays` before `now`.
    func prune(now: Date) async {
        do {
            let removed = try await store.pruneEvents(
                before: now.addingTimeInterval(-Double(keepDays) * 86_400), after: now.addingTimeInterval(DoorEventBatch.allowedSkew))
            if removed > 0 { logger.info("door events older than \(keepDays) days, or dated in the future, deleted", metadata: ["events": "\(removed)"]) }
        } catch {
            logger.warning("door events could not be pruned; tried again in an hour", metadata: ["error": "\(error)"])
        }
    }
}
