import Synchronization

/// Two key sources read as one: the door's keypad and a card reader of its own
/// (`card_reader:`). Each delivers from its own thread or task, in its own order; the first
/// to finish ends both (with its error), as one keypad failing would.
public struct MergedKeySource: KeySource {
    public let first: any KeySource
    public let second: any KeySource

    public var isScripted: Bool { first.isScripted }

    public init(_ first: any KeySource, _ second: any KeySource) {
        self.first = first
        self.second = second
    }

    public func start(
        deliver: @escaping @Sendable (KeySourceEvent) -> Void,
        finished: @escaping @Sendable ((any Error)?) -> Void
    ) -> KeySourceRun {
        let runs = Mutex<[KeySourceRun]>([])
        let ended = Mutex(false)
        let end: @Sendable ((any Error)?) -> Void = { error in
            guard
                ended.withLock({ done in
                    defer { done = true }
                    return !done
                })
            else { return }
            for run in runs.withLock({ $0 }) { run.stop() }
            finished(error)
        }
        let started = [first.start(deliver: deliver, finished: end), second.start(deliver: deliver, finished: end)]
        runs.withLock { $0 = started }
        if ended.withLock({ $0 }) { for run in started { run.stop() } }
        return KeySourceRun(
            stop: {
                ended.withLock { $0 = true }
                for run in started { run.stop() }
            },
            probe: { limit in
                let firstAlive = await started[0].probe(within: limit)
                let secondAlive = await started[1].probe(within: limit)
                return firstAlive && secondAlive
            })
    }
}
