import Foundation
import Synchronization

/// Between the site's push channel and an adopted door's check-in: the newest settings
/// version the check-in knows of (the one it runs, refused or was offered), which the channel
/// reports as `have_settings`, and the nudge the channel gives when the site says "check in
/// now" (new settings, a rotation of the door's secret). Nil ``known``: no check-in runs here,
/// and the channel says nothing of settings.
public final class CheckInNudge: Sendable {
    private struct State {
        var known: Int64?
        /// Check-ins finished.
        var done = 0
        var waiter: CheckedContinuation<Void, Never>?
        /// A nudge came while nobody waited.
        var pending = false
        /// The current wait ended; a waiter registering late goes on at once.
        var closed = false
    }

    private let state = Mutex(State())

    public init() {}

    public var known: Int64? { state.withLock { $0.known } }

    /// After each check-in: the newest settings version it knows of now.
    public func checkedIn(knowing version: Int64) {
        state.withLock { state in
            state.known = max(state.known ?? 0, version)
            state.done += 1
        }
    }

    /// Wakes the check-in at once, then waits until it has finished one (or `limit` passed).
    public func nudge(waitingUpTo limit: Duration) async {
        let before = state.withLock { $0.done }
        state.withLock { state -> CheckedContinuation<Void, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.pending = true
            return nil
        }?.resume()
        let end = ContinuousClock.now + limit
        while state.withLock({ $0.done }) == before, ContinuousClock.now < end, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The check-in's wait: `interval`, or until nudged; true when it was nudged.
    @discardableResult
    public func wait(upTo interval: Duration) async -> Bool {
        state.withLock { $0.closed = false }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                try? await Task.sleep(for: interval)
                return false
            }
            group.addTask { await self.nudged() }
            let nudged = await group.next() ?? false
            group.cancelAll()
            state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.closed = true
                defer { state.waiter = nil }
                return state.waiter
            }?.resume()
            return nudged
        }
    }

    /// True when a nudge ended it; false when the wait closed first.
    private func nudged() async -> Bool {
        let pendingBefore = state.withLock { state -> Bool in
            defer { state.pending = false }
            return state.pending
        }
        if pendingBefore { return true }
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.pending || state.closed { return true }
                state.waiter = continuation
                return false
            }
            if now { continuation.resume() }
        }
        return state.withLock { state in
            defer { state.pending = false }
            return !state.closed || state.pending
        }
    }
}
