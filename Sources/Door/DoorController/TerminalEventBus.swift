import Synchronization

/// The one path from every producer of terminal events (the controller: keys, attempts,
/// display errors; the keypad: faults and health; the door relay: door state; the runner:
/// start and stop) to every sink (relay, feedback, journal, metrics, health).
///
/// Each sink has its own bounded queue, drained in order by its own task, so ``publish(_:)``
/// never waits: a slow sink delays neither the keypad nor another sink. An event that a
/// full queue cannot take is dropped for that sink and counted; once the queue takes
/// events again, every sink is told with ``TerminalEvent/eventsDropped(sink:count:)``
/// (the journal records it, metrics count it).
public final class TerminalEventBus: Sendable {
    /// Events a sink may fall behind by before new ones are dropped for it.
    public static let defaultCapacity = 256

    private struct Lane: Sendable {
        let name: String
        let continuation: AsyncStream<TerminalEvent>.Continuation
        let drain: Task<Void, Never>
    }

    private struct State {
        var lanes: [Lane] = []
        /// Dropped since the sink was last told, and in all, per lane.
        var unreported: [Int] = []
        var total: [Int] = []
        var finished = false
    }

    public let capacity: Int
    private let state = Mutex(State())

    public init(capacity: Int = TerminalEventBus.defaultCapacity) {
        self.capacity = capacity
    }

    /// Starts one queue and task per sink, named by its type (`DoorRelay`, `JournalSink`).
    /// Events published before this are not delivered; call it once, before producers start.
    public func start(sinks: [any TerminalEventSink]) {
        let lanes = sinks.map { sink in
            let (stream, continuation) = AsyncStream.makeStream(of: TerminalEvent.self, bufferingPolicy: .bufferingOldest(capacity))
            let drain = Task {
                for await event in stream { await sink.handle(event) }
            }
            return Lane(name: String(describing: type(of: sink)), continuation: continuation, drain: drain)
        }
        state.withLock { state in
            state.lanes = lanes
            state.unreported = Array(repeating: 0, count: lanes.count)
            state.total = Array(repeating: 0, count: lanes.count)
        }
    }

    /// Hands `event` to every sink's queue and returns at once.
    public func publish(_ event: TerminalEvent) {
        let reports: [TerminalEvent] = state.withLock { state in
            guard !state.finished else { return [] }
            var reports: [TerminalEvent] = []
            for (index, lane) in state.lanes.enumerated() {
                switch lane.continuation.yield(event) {
                case .dropped:
                    state.unreported[index] += 1
                    state.total[index] += 1
                case .enqueued:
                    if state.unreported[index] > 0 {
                        reports.append(.eventsDropped(sink: lane.name, count: state.unreported[index]))
                        state.unreported[index] = 0
                    }
                case .terminated:
                    break
                @unknown default:
                    break
                }
            }
            return reports
        }
        for report in reports { publish(report) }
    }

    /// Events dropped so far, per sink that dropped any.
    public var dropped: [String: Int] {
        state.withLock { state in
            var counts: [String: Int] = [:]
            for (index, lane) in state.lanes.enumerated() where state.total[index] > 0 {
                counts[lane.name, default: 0] += state.total[index]
            }
            return counts
        }
    }

    /// Takes no more events, then waits until every sink has handled what it was given.
    public func finish() async {
        let drains: [Task<Void, Never>] = state.withLock { state in
            state.finished = true
            for lane in state.lanes { lane.continuation.finish() }
            return state.lanes.map(\.drain)
        }
        for drain in drains { await drain.value }
    }
}
