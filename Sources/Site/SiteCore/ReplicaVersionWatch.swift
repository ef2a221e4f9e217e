import Foundation
import Synchronization

/// Tells waiting doors when the replica's version passes the one they hold (`POST /v1/watch`).
/// One reader per server looks at the version (``read``, one indexed row) every ``interval``
/// while any door waits, and resumes every waiter whose version it passed; so a change
/// committed on any instance of the site, by any writer, reaches the doors waiting on each
/// instance within about ``interval``, and a thousand waiting doors cost one read an interval,
/// not a thousand. The waits are continuations: no thread is held while a door waits.
public final class ReplicaVersionWatch: Sendable {
    private struct Waiter {
        let have: Int64
        let continuation: CheckedContinuation<Int64?, Never>
    }

    private struct State {
        var waiters: [UInt64: Waiter] = [:]
        var nextID: UInt64 = 0
        var polling = false
        /// The version last read (nil before the first read).
        var latest: Int64?
    }

    private let state = Mutex(State())
    private let read: @Sendable () async throws -> Int64
    /// How often the version is read while doors wait.
    public let interval: Duration

    public init(interval: Duration = .milliseconds(250), read: @escaping @Sendable () async throws -> Int64) {
        self.interval = interval
        self.read = read
    }

    /// Doors waiting now.
    public var waiting: Int { state.withLock { $0.waiters.count } }

    /// The version once it is above `have`, or nil when `limit` passed first (or the task was
    /// cancelled). A version below `have` (a database restored from a backup) never answers:
    /// the door's own sync sees to that.
    public func change(from have: Int64, within limit: Duration) async -> Int64? {
        if let latest = state.withLock({ $0.latest }), latest > have { return latest }
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let startPolling = state.withLock { state -> Bool in
                    state.waiters[id] = Waiter(have: have, continuation: continuation)
                    defer { state.polling = true }
                    return !state.polling
                }
                if startPolling { Task { await self.poll() } }
                Task {
                    try? await Task.sleep(for: limit)
                    self.resume(id, with: nil)
                }
            }
        } onCancel: {
            resume(id, with: nil)
        }
    }

    /// Resumes waiter `id`, if it still waits.
    private func resume(_ id: UInt64, with version: Int64?) {
        state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume(returning: version)
    }

    /// Reads the version every interval while anyone waits; stops when no one does.
    private func poll() async {
        while true {
            let version = try? await read()
            let (ready, goOn) = state.withLock { state -> ([CheckedContinuation<Int64?, Never>], Bool) in
                if let version { state.latest = version }
                var ready: [CheckedContinuation<Int64?, Never>] = []
                if let version {
                    for (id, waiter) in state.waiters where version > waiter.have {
                        ready.append(waiter.continuation)
                        state.waiters[id] = nil
                    }
                }
                if state.waiters.isEmpty { state.polling = false }
                return (ready, state.polling)
            }
            for continuation in ready { continuation.resume(returning: version) }
            guard goOn else { return }
            try? await Task.sleep(for: interval)
        }
    }
}
