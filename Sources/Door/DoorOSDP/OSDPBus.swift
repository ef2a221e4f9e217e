import Foundation
import Synchronization

/// Commands for the readers from outside the bus thread (feedback, key set), and the wake
/// that sends them without waiting for the next poll. Outlives a bus that is reopened.
public final class OSDPCommandQueue: Sendable {
    private let pending = Mutex<[(address: UInt8?, outgoing: OSDPOutgoing)]>([])
    private let waker = Mutex<(@Sendable () -> Void)?>(nil)

    public init() {}

    /// Queues `outgoing` for the reader at `address`, or every reader when nil.
    public func send(_ outgoing: OSDPOutgoing, to address: UInt8? = nil) {
        pending.withLock { queue in
            queue.append((address, outgoing))
            if queue.count > 32 { queue.removeFirst() }
        }
        waker.withLock { $0 }?()
    }

    /// Whether a command waits (the bus then starts its next cycle at once).
    var hasPending: Bool { pending.withLock { !$0.isEmpty } }

    func take() -> [(address: UInt8?, outgoing: OSDPOutgoing)] {
        pending.withLock { queue in
            defer { queue.removeAll() }
            return queue
        }
    }

    func attach(_ wake: (@Sendable () -> Void)?) {
        waker.withLock { $0 = wake }
    }
}

/// One RS-485 line and its readers, run on a thread of its own (`kp-osdp`): every reader due
/// is sent its next message and answered or timed out (`replyTimeout`, 200 ms: the longest a
/// reader may take by the specification) before the next, so at most one message is on the
/// line; a cycle starts every `pollInterval`. Blocking reads wait in `poll(2)`, never on
/// Swift's cooperative threads.
final class OSDPBus: @unchecked Sendable {
    // @unchecked: links and the packet reader are used by the bus thread only; `stopped`
    // and `rounds` are atomics; the port's wake is thread-safe.
    private let port: OSDPSerialPort
    private var links: [OSDPReaderLink]
    private let pollInterval: Duration
    private let replyTimeout: Duration
    private let commands: OSDPCommandQueue
    private let cycleObserver: (@Sendable (Duration) -> Void)?
    private var reader = OSDPPacketReader()
    let stopped = Atomic<Bool>(false)
    /// Cycles completed, for the watchdog's probe.
    let rounds = Atomic<Int>(0)
    private let origin = ContinuousClock.now

    init(
        port: OSDPSerialPort, links: [OSDPReaderLink], pollInterval: Duration, replyTimeout: Duration, commands: OSDPCommandQueue,
        cycleObserver: (@Sendable (Duration) -> Void)? = nil
    ) {
        self.cycleObserver = cycleObserver
        self.port = port
        self.links = links
        self.pollInterval = pollInterval
        self.replyTimeout = replyTimeout
        self.commands = commands
    }

    private var now: Duration { origin.duration(to: .now) }

    func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        port.wake()
    }

    /// Polls until stopped (returns) or the line fails (throws). `report` gets every
    /// reader's events, on this thread.
    func run(report: (UInt8, OSDPReaderEvent) -> Void) throws {
        let port = self.port
        commands.attach { port.wake() }
        defer { commands.attach(nil) }
        while !stopped.load(ordering: .sequentiallyConsistent) {
            let cycleStart = now
            takeCommands()
            for index in links.indices where links[index].isDue(at: now) {
                guard !stopped.load(ordering: .sequentiallyConsistent) else { return }
                try exchange(index, report: report)
            }
            rounds.add(1, ordering: .sequentiallyConsistent)
            cycleObserver?(now - cycleStart)
            let rest = cycleStart + pollInterval - now
            if rest > .zero, !commands.hasPending {
                // Bytes between exchanges answer no message sent (a late reply, noise): dropped.
                _ = try port.receive(within: rest)
            }
        }
    }

    private func takeCommands() {
        for (address, outgoing) in commands.take() {
            for index in links.indices where address == nil || links[index].address == address {
                links[index].enqueue(outgoing)
            }
        }
    }

    /// Sends reader `index` its next message and reads until its reply or the timeout.
    private func exchange(_ index: Int, report: (UInt8, OSDPReaderEvent) -> Void) throws {
        let address = links[index].address
        let bytes = try links[index].message(at: now)
        reader.reset()
        try port.send(bytes)
        let deadline = now + replyTimeout
        while now < deadline {
            guard let chunk = try port.receive(within: deadline - now) else {
                if stopped.load(ordering: .sequentiallyConsistent) { return }
                continue
            }
            reader.append(chunk)
            while let result = reader.next() {
                switch result {
                case .failure(let error):
                    report(address, .dropped(reason: error.rawValue))
                case .success(let received) where !received.packet.isReply:
                    continue  // our own message, echoed by a half-duplex adapter
                case .success(let received):
                    let events = try links[index].handle(received, at: now)
                    for event in events { report(address, event) }
                    if links[index].replyTaken { return }
                }
            }
        }
        for event in links[index].noReply(at: now) { report(address, event) }
    }
}
