import Synchronization

/// Tells ``TerminalEventBus/publishRecorded(_:within:)`` when every durable record it handed
/// an event to has handled it: counts the lanes expected (``expect()``, then ``close()`` once
/// all are counted) and those that arrived, and answers once: true when all arrived and
/// recorded, false when one could not, the bus was finished, or the time ran out.
final class RecordedSignal: Sendable {
    private struct Count {
        var expected = 0
        var arrived = 0
        var allRecorded = true
        var closed = false
    }

    private let count = Mutex(Count())
    private let answer = OneShotAnswer()

    func expect() {
        count.withLock { $0.expected += 1 }
    }

    /// No more lanes will be expected.
    func close() {
        settle { $0.closed = true }
    }

    /// Nothing can record the event (the bus is finished): the answer is false.
    func refuse() {
        answer.give(false)
    }

    func arrived(recorded: Bool) {
        settle { count in
            count.arrived += 1
            count.allRecorded = count.allRecorded && recorded
        }
    }

    func wait(within limit: Duration) async -> Bool {
        await answer.wait(within: limit)
    }

    private func settle(_ change: (inout Count) -> Void) {
        let outcome: Bool? = count.withLock { count in
            change(&count)
            guard count.closed, count.arrived >= count.expected else { return nil }
            return count.allRecorded
        }
        if let outcome { answer.give(outcome) }
    }
}
