import DoorController
import DoorOSDP
import DoorServices
import DoorVerifierClient
import Foundation
import KeypadHAL
import KioskPadAccess
import KioskPadConfig
import KioskPadCore
import Logging
import ServiceLifecycle

/// Everything around entry that a door terminal needs, built from config: the door relay
/// and feedback outputs, the audit journal and its forwarder, metrics, health, and the
/// loopback metrics endpoint. `kioskpad run` uses all of it; `kioskpad simulate` only the
/// journal, events and metrics, and only when its config asks for them.
public final class DaemonServices: Sendable {
    public let door: DoorRelay?
    public let forwarder: EventForwarder?
    public let metrics: TerminalMetrics
    public let health: HealthState
    /// Every terminal event goes through this to the relay, feedback, journal, metrics and
    /// health, each from its own queue.
    public let bus: TerminalEventBus
    private let poster: SignedPoster?
    private let metricsService: (any Service)?
    private let feedback: FeedbackPlayer?
    /// The OSDP readers' LED and buzzer commands (`driver: osdp`): fed by the feedback sink,
    /// sent by the key source's bus.
    let osdpCommands: OSDPCommandQueue?
    /// The door contact, exit button and tamper logic (nil without any of these inputs).
    public let doorMonitor: DoorMonitor?
    /// The door's mode: the site's lockdown or release (from the replica) and the fire alarm's release.
    public let modes: DoorModeController
    private let doorInputs: DoorInputsService?
    private let logger: Logger
    /// `events.heartbeat_s` when events are forwarded.
    private let heartbeat: Duration?
    /// The credential replica and its sync (`verifier.offline.mode: fallback`).
    public let replica: ReplicaParts?
    /// Home Assistant over MQTT (`mqtt:`).
    public let mqtt: MQTTParts?

    public init(
        configuration: KioskPadConfiguration, stateDirectory: String?, outputs: Bool, logger: Logger,
        metricsRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws {
        self.logger = logger
        let daemon = configuration.daemon
        heartbeat = daemon.events?.heartbeat
        let replica = try TerminalAssembly.replicaParts(configuration, stateDirectory: stateDirectory, logger: logger)
        self.replica = replica
        let keeper = replica?.keeper
        var replicaGauges: (@Sendable () -> (age: Double?, version: Int64)?)?
        if let keeper {
            replicaGauges = { () -> (age: Double?, version: Int64)? in
                guard let held = keeper.held else { return nil }
                return (keeper.age().map { Double($0.wholeSeconds) }, held.version)
            }
        }
        let metrics = TerminalMetrics(replica: replicaGauges)
        // A local verifier decides with the wall clock: /healthz says when it does not count.
        let trust = daemon.clockTrust
        let clockProblem: @Sendable () -> String?
        if case .local = configuration.verifier {
            clockProblem = { KernelClock.problem(trust) }
        } else {
            clockProblem = { nil }
        }
        let bus = TerminalEventBus()
        let mqtt = try MQTTParts.make(configuration, doorInputs: outputs, metrics: metrics, bus: bus, logger: logger)
        self.mqtt = mqtt
        let health = HealthState(clockProblem: clockProblem, offlineLine: { keeper?.healthLine() }, extraLines: { mqtt.map { [$0.healthLine] } ?? [] })
        self.metrics = metrics
        self.health = health
        var sinks: [any TerminalEventSink] = [health, metrics]
        if let mqtt { sinks.append(mqtt.bridge) }

        var forwarder: EventForwarder?
        var poster: SignedPoster?
        if let directory = stateDirectory {
            let file: TerminalJournal
            do {
                file = try TerminalJournal(
                    directory: directory, maxBytes: daemon.journalMaxBytes, forwarding: daemon.events != nil,
                    dropped: { count in
                        logger.error("journal full of undelivered records; the oldest were deleted", metadata: ["records": "\(count)"])
                    })
            } catch {
                throw KeyedError(key: "state_dir", message: "cannot write the journal in \(directory): \(error)", kind: .unavailable(retryable: true))
            }
            if let events = daemon.events {
                let secret = try events.secret.map { source in
                    do {
                        return try WebhookSecret(reading: source)
                    } catch {
                        throw KeyedError(key: TerminalAssembly.key("events.secret", source), message: "\(error)")
                    }
                }
                let eventsPoster = try SignedPoster(
                    url: events.url, terminalID: configuration.terminalID, secret: secret, allowInsecureHTTP: events.allowInsecureHTTP, logger: logger)
                poster = eventsPoster
                forwarder = EventForwarder(journal: file, poster: eventsPoster, logger: logger)
            }
            let wake = forwarder
            sinks.append(JournalSink(journal: file, terminalID: configuration.terminalID, logger: logger) { wake?.notify() })
        }
        var door: DoorRelay?
        var feedback: FeedbackPlayer?
        var osdpCommands: OSDPCommandQueue?
        if outputs {
            if let config = daemon.door {
                let relay = try DoorRelay(
                    output: try GPIOOutputLine(config.relay, key: "door.relay"), defaultUnlock: config.unlock,
                    maxUnlock: DaemonServices.maxUnlock(door: config, verifier: configuration.verifier),
                    logger: logger,
                    observer: { on, seconds in bus.publish(.door(unlocked: on, seconds: seconds)) })
                door = relay
                sinks.insert(relay, at: 0)  // its queue is fed first on every publish
            }
            if configuration.keypad.driver == .osdp {
                let commands = OSDPCommandQueue()
                osdpCommands = commands
                sinks.append(OSDPReaderFeedback(commands: commands))
            }
            if let config = daemon.feedback {
                let player = FeedbackPlayer(
                    buzzer: try config.buzzer.map { try GPIOOutputLine($0, key: "feedback.buzzer") },
                    grantedLED: try config.grantedLED.map { try GPIOOutputLine($0, key: "feedback.led_granted") },
                    deniedLED: try config.deniedLED.map { try GPIOOutputLine($0, key: "feedback.led_denied") })
                feedback = player
                sinks.append(player)
            }
        }
        let modes = DoorModeController(relay: door, bus: bus, logger: logger, clock: { keeper?.trustedNow() })
        self.modes = modes
        sinks.append(modes)
        var monitor: DoorMonitor?
        var inputs: DoorInputsService?
        if outputs, !daemon.inputLines.isEmpty {
            let doorConfig = daemon.door
            let made = DoorMonitor(
                relay: door,
                settings: DoorMonitor.Settings(
                    heldOpen: doorConfig?.heldOpen ?? .seconds(30), openGrace: doorConfig?.openGrace ?? .seconds(3),
                    relockOnOpen: doorConfig?.relockOnOpen ?? true, exitUnlock: doorConfig?.unlock ?? .seconds(5)),
                logger: logger, publish: { bus.publish($0) })
            do {
                inputs = try DoorInputsService(configuration: daemon, monitor: made, modes: modes, logger: logger)
            } catch {
                door?.shutdown()
                throw error
            }
            monitor = made
        }
        self.doorMonitor = monitor
        self.doorInputs = inputs
        self.door = door
        self.feedback = feedback
        self.osdpCommands = osdpCommands
        self.forwarder = forwarder
        self.poster = poster
        bus.start(sinks: sinks)
        self.bus = bus
        if let listen = daemon.metrics {
            metricsService = MetricsServer(
                metrics: metrics, health: health, host: listen.host, port: listen.port, onRunning: metricsRunning)
        } else {
            metricsService = nil
        }
    }

    /// The one clamp on how long a grant may hold the door open: `door.max_unlock_s`, and
    /// also `verifier.max_unlock_s` with an HTTP verifier (the tighter wins). The relay
    /// applies it to every grant; nothing else clamps.
    public static func maxUnlock(door: DoorConfiguration, verifier: VerifierConfiguration) -> Duration {
        guard case .http(let http) = verifier else { return door.maxUnlock }
        return min(door.maxUnlock, .seconds(http.maxUnlockSeconds))
    }

    /// How long a stopping terminal tries to forward what it journaled.
    public static let drainLimit: Duration = .seconds(2)

    /// Background services to run in the service group (metrics endpoint, forwarder).
    public var services: [any Service] {
        var list: [any Service] = []
        if let metricsService { list.append(metricsService) }
        if let forwarder { list.append(ForwarderService(forwarder: forwarder)) }
        if forwarder != nil, let heartbeat { list.append(HeartbeatService(bus: bus, interval: heartbeat)) }
        if let doorInputs { list.append(doorInputs) }
        if let replica {
            list.append(ReplicaSyncService(loop: replica.sync, modes: modes))
            list.append(UnlockScheduleService(modes: modes))
        }
        if let mqtt { list.append(MQTTService(parts: mqtt)) }
        return list
    }

    /// Door off first, then the stop event, which every sink gets after all the events
    /// before it, then connections closed.
    public func shutdown() async {
        door?.shutdown()
        bus.publish(.stopping)
        await bus.finish()
        if let forwarder, await !forwarder.drain(within: DaemonServices.drainLimit) {
            logger.notice("some journal records were not forwarded before stopping; they stay queued for the next start")
        }
        await poster?.shutdown()
        await replica?.sync.client.shutdown()
    }
}

/// Publishes a heartbeat every `interval` (a `status` journal record, forwarded like every
/// record), so the site sees a door where nothing happens.
struct HeartbeatService: Service {
    let bus: TerminalEventBus
    let interval: Duration

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                if !Task.isCancelled { bus.publish(.heartbeat) }
            }
        }
    }
}

/// Runs the event forwarder until the service group shuts down.
struct ForwarderService: Service {
    let forwarder: EventForwarder
    func run() async throws {
        await cancelWhenGracefulShutdown {
            await forwarder.run()
        }
    }
}
