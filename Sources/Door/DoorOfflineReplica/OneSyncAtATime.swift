import Synchronization

/// The door's syncs one at a time: one asked for while another runs (the poll and the push
/// channel at once) waits for that one and gets what it brought, so two answers are never
/// applied to the replica together.
final class OneSyncAtATime: Sendable {
    private let running = Mutex<Task<ReplicaKeeper.SyncSummary, any Error>?>(nil)

    func run(_ body: @escaping @Sendable () async throws -> ReplicaKeeper.SyncSummary) async throws -> ReplicaKeeper.SyncSummary {
        let task = running.withLock { running in
            if let running { return running }
            let started = Task { try await body() }
            running = started
            return started
        }
        defer { running.withLock { if $0 == task { $0 = nil } } }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }
}
