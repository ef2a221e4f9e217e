import DoorVerifierClient
import Foundation
import KioskPadAccess
import KioskPadCore
import KioskPadThreads
import Logging

/// Keeps a door's replica fresh: a sync at start, then every `sync_s` (each wait varied by
/// up to a fifth either way, so doors that started together drift apart), waiting longer
/// after failures (twice, four, then eight times `sync_s`). A change from working to
/// failing, or back, is logged once.
public struct ReplicaSyncLoop: Sendable {
    public let keeper: ReplicaKeeper
    public let client: ReplicaSyncClient
    public let interval: Duration
    let logger: Logger

    public init(keeper: ReplicaKeeper, client: ReplicaSyncClient, interval: Duration, logger: Logger) {
        self.keeper = keeper
        self.client = client
        self.interval = interval
        self.logger = logger
    }

    /// One fetch and check: what it brought, or why it failed.
    public func syncOnce() async throws -> ReplicaKeeper.SyncSummary {
        let held = keeper.held
        let signed = try await client.fetch(have: held?.version ?? 0, mark: held?.markForDelta)
        let (keeper, received) = (self.keeper, BootInstant.now())
        // The check and the file writes (fsync, rename) on the file thread, never a cooperative one.
        return try await WorkThreads.files.run { try keeper.accept(signed, receivedAt: received) }
    }

    /// Syncs until cancelled; `afterSync` runs after each sync that succeeded.
    public func run(afterSync: @Sendable () async -> Void = {}) async {
        var failures = 0
        while !Task.isCancelled {
            do {
                let summary = try await syncOnce()
                await afterSync()
                if failures > 0 || summary.changed {
                    var metadata: Logger.Metadata = ["version": "\(summary.version)", "users": "\(summary.users)", "changed": "\(summary.changed)"]
                    if let changed = summary.deltaUsers { metadata["delta_users"] = "\(changed)" }
                    logger.notice("credential replica synced", metadata: metadata)
                }
                failures = 0
            } catch {
                if failures == 0 {
                    logger.warning(
                        "credential replica sync failed; the door keeps the replica it has", metadata: ["error": "\(error)", "url": "\(client.url)"])
                }
                failures += 1
            }
            try? await Task.sleep(for: ReplicaSyncLoop.delay(interval: interval, failures: failures))
        }
    }

    /// The wait before the next sync after `failures` failures in a row.
    static func delay(interval: Duration, failures: Int) -> Duration {
        let factor = Double(1 << min(failures, 3))
        return .milliseconds(Int64(interval.timeInterval * factor * Double.random(in: 0.8...1.2) * 1000))
    }
}
