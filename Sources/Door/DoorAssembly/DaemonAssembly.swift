import DoorConfig
import DoorController
import DoorOSDP
import DoorServices
import KioskPadConfig
import KioskPadCore
import Logging

extension DaemonServices {
    /// The door's services from `configuration`, built in this order (each part needs the
    /// ones before it):
    /// 1. the replica (`ReplicaAssembly`): its keeper feeds the metrics' gauges, `/healthz`
    ///    and the clock the door's modes read;
    /// 2. the metrics, the event bus, Home Assistant (`MQTTAssembly`, which reports into the
    ///    metrics and publishes on the bus) and health;
    /// 3. the journal and its forwarder (`JournalAssembly`), with `state_dir`;
    /// 4. with `outputs` (`kioskpad run`): the relay, first among the bus's sinks, the OSDP
    ///    readers' LEDs and buzzer, then the buzzer and LEDs on GPIO (`OutputAssembly`);
    /// 5. the door's modes, which drive the relay, then the door inputs (`DoorInputsAssembly`),
    ///    which report to both;
    /// 6. the bus started with every sink, then the metrics endpoint.
    /// The relay is off from the moment it is made; if a later part fails, it is switched
    /// off again before the error goes up.
    public convenience init(
        configuration: KioskPadConfiguration, stateDirectory: String?, outputs: Bool, osdpCommands: OSDPCommandQueue? = nil,
        logger: Logger, metricsRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws {
        let daemon = configuration.daemon
        let replica = try TerminalAssembly.replicaParts(configuration, stateDirectory: stateDirectory, logger: logger)
        let keeper = replica?.keeper
        let metrics = keeper.map { TerminalMetrics(replica: $0) } ?? TerminalMetrics()
        let bus = TerminalEventBus()
        let mqtt = try MQTTParts.make(configuration, doorInputs: outputs, metrics: metrics, bus: bus, logger: logger)
        let health = HealthState(
            clockProblem: ClockAssembly.problem(configuration), offlineLine: { keeper?.healthLine() },
            extraLines: { mqtt.map { [$0.healthLine] } ?? [] })
        var sinks: [any TerminalEventSink] = [health, metrics]
        if let mqtt { sinks.append(mqtt.bridge) }
        var journal: JournalParts?
        if let stateDirectory {
            let made = try JournalAssembly.journal(configuration, directory: stateDirectory, logger: logger)
            journal = made.parts
            sinks.append(made.sink)
        }
        let door = outputs ? try OutputAssembly.relay(configuration, bus: bus, logger: logger) : nil
        if let door { sinks.insert(door, at: 0) }  // its queue is fed first on every publish
        do {
            if outputs { sinks += try OutputAssembly.feedback(daemon, osdpCommands: osdpCommands) }
            let modes = DoorModeController(relay: door, bus: bus, logger: logger, clock: { keeper?.trustedNow() })
            sinks.append(modes)
            let inputs = outputs ? try DoorInputsAssembly.inputs(daemon, relay: door, modes: modes, bus: bus, logger: logger) : nil
            bus.start(sinks: sinks)
            let metricsService = daemon.metrics.map { listen in
                MetricsServer(metrics: metrics, health: health, host: listen.host, port: listen.port, onRunning: metricsRunning)
            }
            self.init(
                bus: bus, metrics: metrics, health: health, door: door, journal: journal, modes: modes, doorMonitor: inputs?.monitor,
                doorInputs: inputs?.service, replica: replica, mqtt: mqtt, metricsService: metricsService,
                heartbeat: daemon.events?.heartbeat, logger: logger)
        } catch {
            door?.shutdown()
            throw error
        }
    }

    /// The one clamp on how long a grant may hold the door open: `door.max_unlock_s`, and
    /// also `verifier.max_unlock_s` with an HTTP verifier (the tighter wins). The relay
    /// applies it to every grant; nothing else clamps.
    public static func maxUnlock(door: DoorConfiguration, verifier: VerifierConfiguration) -> Duration {
        guard case .http(let http) = verifier else { return door.maxUnlock }
        return min(door.maxUnlock, .seconds(http.maxUnlockSeconds))
    }
}

/// `clock.trust` for `/healthz`: a local verifier decides with the wall clock, so health says
/// when it does not count; the other verifiers do not read it.
enum ClockAssembly {
    static func problem(_ configuration: KioskPadConfiguration) -> @Sendable () -> String? {
        guard case .local = configuration.verifier else { return { nil } }
        let trust = configuration.daemon.clockTrust
        return { KernelClock.problem(rtc: trust == .rtc) }
    }
}
