// A grant's way to Home Assistant: from the moment the terminal's event reaches the bridge
// (`HomeAssistantBridge.handle`, as the event bus delivers it) to the moment a second MQTT
// client, subscribed to the terminal's event topic, receives the message. Both clients are
// libmosquitto through `MQTTLink`; the broker is Debian's mosquitto on loopback, started
// here. Also: 10,000 events while the broker is away (what the bounded queue keeps, drops
// and allocates).
// Run: cd Benchmarks && swift package --disable-sandbox benchmark --target HomeAssistantEvents
import Benchmark
import DoorController
import DoorHomeAssistant
import Foundation
import KioskPadCore
import Logging
import SmokeRun
import Synchronization

/// Messages seen on the event topic: a count, and a stream a benchmark run waits on.
final class Arrivals: Sendable {
    let count = Atomic<Int>(0)
    private let waiter = Mutex<AsyncStream<Void>.Continuation?>(nil)

    func arrived() {
        count.add(1, ordering: .sequentiallyConsistent)
        _ = waiter.withLock { $0 }?.yield()
    }

    /// A fresh stream that yields once per message from now on.
    func stream() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .unbounded)
        waiter.withLock { $0 = continuation }
        return stream
    }
}

/// A mosquitto broker on a loopback port, a bridge connected to it, and a subscriber.
final class LoopbackSite: Sendable {
    let broker: Process
    let bridge: HomeAssistantBridge
    let arrivals = Arrivals()
    private let links: [MQTTLink]

    static let shared = LoopbackSite()

    static let grant = TerminalEvent.attemptDecided(
        attemptID: "bench", kind: .pin, outcome: .granted(user: "alice"), latency: .milliseconds(5), lockedOut: false)

    private init() {
        let port = 20_000 + Int(getpid() % 20_000)
        broker = Process()
        broker.executableURL = URL(fileURLWithPath: "/usr/sbin/mosquitto")
        broker.arguments = ["-p", "\(port)"]  // mosquitto 2 without a config: loopback only
        broker.standardOutput = FileHandle.nullDevice
        broker.standardError = FileHandle.nullDevice
        do { try broker.run() } catch { fatalError("cannot start /usr/sbin/mosquitto (apt-get install mosquitto): \(error)") }
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        let topics = HomeAssistantTopics(base: "kioskpad/bench-door", prefix: "homeassistant")
        let inbox = HomeAssistantBridge.makeInbox()
        let link = MQTTLink(
            settings: MQTTLinkSettings(host: "127.0.0.1", port: port, tls: false, clientID: "bench-door", will: (topics.status, "offline")),
            logger: logger
        ) { inbox.1.yield(.link($0)) }
        let bridge = HomeAssistantBridge(
            transport: link, inbox: inbox,
            discovery: HomeAssistantDiscovery(
                topics: topics, terminalID: "bench-door", version: "bench",
                features: .init(doorContact: false, tamper: false, remoteUnlock: false)),
            logger: logger)
        self.bridge = bridge
        let arrivals = self.arrivals
        let holder = Mutex<MQTTLink?>(nil)
        let subscriber = MQTTLink(
            settings: MQTTLinkSettings(host: "127.0.0.1", port: port, tls: false, clientID: "bench-home-assistant"), logger: logger
        ) { report in
            switch report {
            case .connected: holder.withLock { $0 }?.subscribe(topics.event)
            case .message(let message) where message.topic == topics.event: arrivals.arrived()
            default: break
            }
        }
        holder.withLock { $0 = subscriber }
        links = [link, subscriber]
        Task { await bridge.run() }
        Task { await link.run() }
        Task { await subscriber.run() }
    }

    /// Sends grants until one arrives (both clients connected, the subscription in place),
    /// then lets the stragglers land.
    func ready() async {
        while arrivals.count.load(ordering: .sequentiallyConsistent) == 0 {
            await bridge.handle(LoopbackSite.grant)
            try? await Task.sleep(for: .milliseconds(200))
        }
        try? await Task.sleep(for: .milliseconds(300))
    }

    /// Stops the broker, so that it does not outlive the benchmark. SIGKILL: the broker
    /// inherits this process's blocked signals (SIGTERM among them) from Foundation's
    /// `Process`; and no `waitUntilExit`, which can spin for ever.
    func stop() {
        kill(broker.processIdentifier, SIGKILL)
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal], warmupIterations: 20, maxDuration: .seconds(10), maxIterations: 2_000)

    // One iteration: a grant handed to the bridge, then its event message at the subscriber.
    Benchmark("grant to event message on loopback (bridge, broker, subscriber)") { benchmark in
        let site = LoopbackSite.shared
        var arrivals = site.arrivals.stream().makeAsyncIterator()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            await site.bridge.handle(LoopbackSite.grant)
            _ = await arrivals.next()
        }
        benchmark.stopMeasurement()
    } setup: {
        await LoopbackSite.shared.ready()
    } teardown: {
        LoopbackSite.shared.stop()
    }

    // 10,000 grants into a bridge whose broker is away (its link never runs): the queue keeps
    // the newest 100. Reports what it keeps (events and payload bytes) and drops.
    Benchmark(
        "10,000 events while the broker is away",
        configuration: .init(
            metrics: [.wallClock, .mallocCountTotal, .custom("queued events"), .custom("queued payload bytes"), .custom("dropped events")],
            warmupIterations: 0, maxIterations: 5)
    ) { benchmark in
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        let topics = HomeAssistantTopics(base: "kioskpad/away-door", prefix: "homeassistant")
        let link = MQTTLink(settings: MQTTLinkSettings(host: "127.0.0.1", port: 1, tls: false, clientID: "away-door"), logger: logger) { _ in }
        let dropped = Mutex(0)
        let bridge = HomeAssistantBridge(
            transport: link, inbox: HomeAssistantBridge.makeInbox(),
            discovery: HomeAssistantDiscovery(
                topics: topics, terminalID: "away-door", version: "bench", features: .init(doorContact: false, tamper: false, remoteUnlock: false)),
            logger: logger,
            note: { note in if case .eventsDropped(let count) = note { dropped.withLock { $0 += count } } })
        benchmark.startMeasurement()
        for n in 0..<10_000 {
            await bridge.handle(
                .attemptDecided(
                    attemptID: "a\(n)", kind: .pin, outcome: .granted(user: "user-\(n)"), latency: .milliseconds(5), lockedOut: false))
        }
        benchmark.stopMeasurement()
        benchmark.measurement(.custom("queued events"), await bridge.queuedEvents)
        benchmark.measurement(.custom("queued payload bytes"), await bridge.queuedBytes)
        benchmark.measurement(.custom("dropped events"), dropped.withLock { $0 })
    }
    SmokeRun.clampIfAsked()
}
