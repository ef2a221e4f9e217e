import Synchronization

/// Runs an operation against a deadline and returns whichever comes first: its result, or
/// `timedOut()` once the deadline passes. On a timeout the operation's task is cancelled
/// and *not* waited for, so a peer that ignores cancellation (a body that stalls, a
/// connection that never closes) cannot hold the caller past the deadline.
enum DeadlineRace {
    static func run<T: Sendable>(
        until deadline: ContinuousClock.Instant,
        timedOut: @escaping @Sendable () -> T,
        _ operation: @escaping @Sendable () async -> T
    ) async -> T {
        let gate = ResumeOnce<T>()
        let tasks = RacingTasks()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                guard gate.arm(continuation) else { return }  // cancelled before it started
                let work = Task {
                    let value = await operation()
                    if gate.claim() {
                        gate.deliver(value)
                        tasks.cancelTimer()
                    }
                }
                let timer = Task {
                    try? await Task.sleep(until: deadline, clock: .continuous)
                    if !Task.isCancelled, gate.claim() {
                        work.cancel()
                        gate.deliver(timedOut())
                    }
                }
                tasks.set(work: work, timer: timer)
            }
        } onCancel: {
            // The caller gave up (shutdown): stop both and answer as a timeout would.
            tasks.cancelBoth()
            if gate.claim() { gate.deliver(timedOut()) }
        }
    }
}

/// The two racing tasks, kept so either side (or the caller's cancellation) can stop them.
private final class RacingTasks: Sendable {
    private let tasks = Mutex<(work: Task<Void, Never>?, timer: Task<Void, Never>?)>((nil, nil))

    func set(work: Task<Void, Never>, timer: Task<Void, Never>) {
        tasks.withLock { $0 = (work, timer) }
    }

    func cancelTimer() {
        tasks.withLock { $0.timer?.cancel() }
    }

    func cancelBoth() {
        let (work, timer) = tasks.withLock { $0 }
        work?.cancel()
        timer?.cancel()
    }
}

/// A continuation resumed exactly once: the first to ``claim()`` it then ``deliver(_:)``s.
/// A delivery that comes before ``arm(_:)`` is kept and handed over there.
private final class ResumeOnce<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, Never>?
        var early: T?
        var claimed = false
    }

    private let state = Mutex(State())

    /// Stores the continuation; false (and resumed already) when a value was delivered first.
    func arm(_ continuation: CheckedContinuation<T, Never>) -> Bool {
        let early: T? = state.withLock { state in
            if let early = state.early { return early }
            state.continuation = continuation
            return nil
        }
        guard let early else { return true }
        continuation.resume(returning: early)
        return false
    }

    /// True for the first caller only.
    func claim() -> Bool {
        state.withLock { state in
            defer { state.claimed = true }
            return !state.claimed
        }
    }

    /// Resumes with `value` (call after a successful ``claim()``).
    func deliver(_ value: T) {
        let waiting: CheckedContinuation<T, Never>? = state.withLock { state in
            guard let continuation = state.continuation else {
                state.early = value
                return nil
            }
            state.continuation = nil
            return continuation
        }
        waiting?.resume(returning: value)
    }
}
