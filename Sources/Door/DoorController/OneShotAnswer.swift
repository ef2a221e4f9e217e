import Synchronization

/// A yes or no given once, that one task waits for with a time limit: the first ``give(_:)``
/// counts, later ones are ignored, and a wait that runs out answers false.
final class OneShotAnswer: Sendable {
    private struct State {
        var answer: Bool?
        var waiter: CheckedContinuation<Bool, Never>?
    }

    private let state = Mutex(State())

    /// Sets the answer once and resumes the waiter, if it waits already.
    func give(_ answer: Bool) {
        let waiter: CheckedContinuation<Bool, Never>? = state.withLock { state in
            guard state.answer == nil else { return nil }
            state.answer = answer
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: answer)
    }

    /// Waits for the answer, for at most `limit`; a timeout answers false.
    func wait(within limit: Duration) async -> Bool {
        let timeout = Task {
            try? await Task.sleep(for: limit)
            self.give(false)
        }
        defer { timeout.cancel() }
        return await withCheckedContinuation { continuation in
            let known: Bool? = state.withLock { state in
                if let answer = state.answer { return answer }
                state.waiter = continuation
                return nil
            }
            if let known { continuation.resume(returning: known) }
        }
    }
}
