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
        let isDurableRecord: Bool
        let continuation: AsyncStream<Delivery>.Continuation
        let drain: Task<Void, Never>
    }

    /// An event in a lane's queue, with what to tell once that lane's sink has handled it.
    private struct Delivery: Sendable {
        let event: TerminalEvent
        let recorded: RecordedSignal?
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
            let (stream, continuation) = AsyncStream.makeStream(of: Delivery.self, bufferingPolicy: .bufferingOldest(capacity))
            let drain = Task {
                for await delivery in stream {
                    await sink.handle(delivery.event)
                    delivery.recorded?.arrived(recorded: true)
                }
            }
            return Lane(
                name: String(describing: type(of: sink)), isDurableRecord: sink.isDurableRecord, continuation: continuation, drain: drain)
        }
        state.withLock { state in
            state.lanes = lanes
            state.unreported = Array(repeating: 0, count: lanes.count)
            state.total = Array(repeating: 0, count: lanes.count)
        }
    }

    /// Hands `event` to every sink's queue and returns at once.
    public func publish(_ event: TerminalEvent) {
        publish(event, recorded: nil)
    }

    /// Hands `event` to every sink's queue, then waits until each durable record (the journal,
    /// ``TerminalEventSink/isDurableRecord``) has handled it, for at most `limit`: the door
    /// shows an attempt's result only after this, so a power cut cannot lose an attempt whose
    /// result was shown. True when every durable record handled it in time (also when there is
    /// none); false when one had not (a stalled card), could not queue it, or the bus is
    /// finished. The other sinks (the relay among them) are not waited for.
    public func publishRecorded(_ event: TerminalEvent, within limit: Duration) async -> Bool {
        let signal = RecordedSignal()
        publish(event, recorded: signal)
        return await signal.wait(within: limit)
    }

    private func publish(_ event: TerminalEvent, recorded: RecordedSignal?) {
        let reports: [TerminalEvent] = state.withLock { state in
            guard !state.finished else {
                recorded?.refuse()
                return []
            }
            var reports: [TerminalEvent] = []
            for (index, lane) in state.lanes.enumerated() {
                let waitedFor = lane.isDurableRecord ? recorded : nil
                waitedFor?.expect()
                switch lane.continuation.yield(Delivery(event: event, recorded: waitedFor)) {
                case .dropped:
                    waitedFor?.arrived(recorded: false)
                    state.unreported[index] += 1
                    state.total[index] += 1
                case .enqueued:
                    if state.unreported[index] > 0 {
                        reports.append(.eventsDropped(sink: lane.name, count: state.unreported[index]))
                        state.unreported[index] = 0
                    }
                case .terminated:
                    waitedFor?.arrived(recorded: false)
                @unknown default:
                    waitedFor?.arrived(recorded: false)
                }
            }
            recorded?.close()
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
