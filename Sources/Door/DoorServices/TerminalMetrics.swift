import DoorController
import KioskPadAccess
import KioskPadCore
import Metrics
import Prometheus

/// Counters and a latency histogram in Prometheus text format, through swift-metrics with a
/// swift-prometheus factory: keys, attempts by result, verifier latency, lockouts, keypad
/// faults, dropped Wiegand frames by reason, display errors, door unlocks, duress grants, door contact / exit / tamper events
/// and the door's and tamper's state, the door's mode, events a sink's queue dropped. Nothing derived
/// from a PIN is ever recorded.
public final class TerminalMetrics: TerminalEventSink {
    public let registry: PrometheusCollectorRegistry
    private let keys: Metrics.Counter
    private let granted: Metrics.Counter
    private let denied: Metrics.Counter
    /// Cards whose PIN was asked for (a card-and-PIN door): not denials.
    private let secondFactor: Metrics.Counter
    private let unavailable: Metrics.Counter
    private let latency: Metrics.Timer
    private let lockouts: Metrics.Counter
    private let ghosting: Metrics.Counter
    private let stuck: Metrics.Counter
    private let displayErrors: Metrics.Counter
    private let unlocks: Metrics.Counter
    private let keypadUp: Metrics.Gauge
    private let duress: Metrics.Counter
    private let doorOpen: Metrics.Gauge
    private let tampered: Metrics.Gauge
    private let factory: PrometheusMetricsFactory
    private let replicaAge: Metrics.Gauge
    private let replicaVersion: Metrics.Gauge
    /// The replica's age in seconds and its version, asked at each scrape (nil: no replica).
    private let replica: (@Sendable () -> (age: Double?, version: Int64)?)?

    public init(replica: (@Sendable () -> (age: Double?, version: Int64)?)? = nil) {
        self.replica = replica
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5].map { Duration.milliseconds(Int($0 * 1000)) }
        self.registry = registry
        self.factory = factory
        keys = Metrics.Counter(label: "kioskpad_keys_total", factory: factory)
        granted = Metrics.Counter(label: "kioskpad_attempts_total", dimensions: [("result", "granted")], factory: factory)
        denied = Metrics.Counter(label: "kioskpad_attempts_total", dimensions: [("result", "denied")], factory: factory)
        secondFactor = Metrics.Counter(label: "kioskpad_attempts_total", dimensions: [("result", "pin_asked")], factory: factory)
        unavailable = Metrics.Counter(label: "kioskpad_attempts_total", dimensions: [("result", "error")], factory: factory)
        latency = Metrics.Timer(label: "kioskpad_verifier_latency_seconds", factory: factory)
        lockouts = Metrics.Counter(label: "kioskpad_lockouts_total", factory: factory)
        ghosting = Metrics.Counter(label: "kioskpad_keypad_faults_total", dimensions: [("kind", "ghosting")], factory: factory)
        stuck = Metrics.Counter(label: "kioskpad_keypad_faults_total", dimensions: [("kind", "stuck")], factory: factory)
        displayErrors = Metrics.Counter(label: "kioskpad_display_errors_total", factory: factory)
        unlocks = Metrics.Counter(label: "kioskpad_door_unlocks_total", factory: factory)
        keypadUp = Metrics.Gauge(label: "kioskpad_keypad_up", factory: factory)
        keypadUp.record(1)
        duress = Metrics.Counter(label: "kioskpad_duress_total", factory: factory)
        doorOpen = Metrics.Gauge(label: "kioskpad_door_open", factory: factory)
        tampered = Metrics.Gauge(label: "kioskpad_tamper_active", factory: factory)
        replicaAge = Metrics.Gauge(label: "kioskpad_replica_age_seconds", factory: factory)
        replicaVersion = Metrics.Gauge(label: "kioskpad_replica_version", factory: factory)
        // A door starts normal; the mode controller's first change (a held replica, the fire
        // alarm) moves it. So the series is there from the first scrape, not the first change.
        recordMode(.normal)
    }

    /// One gauge per mode, 1 for the one the door is in.
    private func recordMode(_ current: DoorMode) {
        for mode in DoorMode.allCases {
            Metrics.Gauge(label: "kioskpad_door_mode", dimensions: [("mode", mode.rawValue)], factory: factory).record(mode == current ? 1 : 0)
        }
    }

    public func handle(_ event: TerminalEvent) async {
        switch event {
        case .keyPressed:
            keys.increment()
        case .attemptDecided(_, let kind, let outcome, let duration, let lockedOut, let provenance):
            switch outcome {
            case .granted:
                granted.increment()
                if outcome.isDuress { duress.increment() }
            case .denied where outcome.asksForPIN(after: kind): secondFactor.increment()
            case .denied: denied.increment()
            case .unavailable: unavailable.increment()
            }
            latency.recordNanoseconds(duration.wholeNanoseconds)
            if lockedOut { lockouts.increment() }
            if let note = provenance.offline {
                Metrics.Counter(label: "kioskpad_offline_decisions_total", dimensions: [("decision", note.decision)], factory: factory)
                    .increment()
            }
        case .pinEnrolment(_, let outcome, let lockedOut):
            Metrics.Counter(label: "kioskpad_pin_enrolments_total", dimensions: [("result", outcome.result)], factory: factory).increment()
            if lockedOut { lockouts.increment() }
        case .remoteUnlockRefused(let reason):
            Metrics.Counter(label: "kioskpad_remote_unlock_refused_total", dimensions: [("reason", reason)], factory: factory).increment()
        case .remoteCommand(_, let action, _, let result, _):
            Metrics.Counter(label: "kioskpad_remote_commands_total", dimensions: [("action", action), ("result", result)], factory: factory)
                .increment()
        case .keypadFault(let kind, _):
            (kind == "stuck" ? stuck : ghosting).increment()
        case .wiegandFrameDropped(let reason):
            Metrics.Counter(label: "kioskpad_wiegand_frames_dropped_total", dimensions: [("reason", reason)], factory: factory)
                .increment()
        case .keypadHealth(let ok):
            keypadUp.record(ok ? 1 : 0)
        case .reader(let address, let report):
            Metrics.Counter(label: "kioskpad_reader_events_total", dimensions: [("event", report.recordType.rawValue)], factory: factory).increment()
            switch report {
            case .online: Metrics.Gauge(label: "kioskpad_reader_online", dimensions: [("reader", "\(address)")], factory: factory).record(1)
            case .offline, .refused:
                Metrics.Gauge(label: "kioskpad_reader_online", dimensions: [("reader", "\(address)")], factory: factory).record(0)
            default: break
            }
        case .readerMessageDropped(let reason):
            Metrics.Counter(label: "kioskpad_reader_messages_dropped_total", dimensions: [("reason", reason)], factory: factory).increment()
        case .displayError:
            displayErrors.increment()
        case .door(let unlocked, _):
            if unlocked { unlocks.increment() }
        case .doorInput(let input):
            Metrics.Counter(label: "kioskpad_door_events_total", dimensions: [("event", input.recordType.rawValue)], factory: factory)
                .increment()
            switch input {
            case .opened, .closed: doorOpen.record(input == .opened ? 1 : 0)
            case .tamper(let active): tampered.record(active ? 1 : 0)
            default: break
            }
        case .doorMode(let change):
            recordMode(change.mode)
        case .eventsDropped(let sink, let count):
            Metrics.Counter(label: "kioskpad_events_dropped_total", dimensions: [("sink", sink)], factory: factory)
                .increment(by: count)
        case .started, .stopping, .heartbeat:
            break
        }
    }

    /// The MQTT link's state changed (`connected`, `refused`, `unavailable`, `connecting`).
    public func mqttConnection(_ state: String) {
        Metrics.Gauge(label: "kioskpad_mqtt_connected", factory: factory).record(state == "connected" ? 1 : 0)
        Metrics.Counter(label: "kioskpad_mqtt_state_changes_total", dimensions: [("state", state)], factory: factory).increment()
    }

    /// Events the MQTT queue dropped while the broker was away (the journal has them).
    public func mqttEventsDropped(_ count: Int) {
        Metrics.Counter(label: "kioskpad_mqtt_events_dropped_total", factory: factory).increment(by: count)
    }

    /// A message from the broker that was ignored, by reason.
    public func mqttMessageIgnored(_ reason: String) {
        Metrics.Counter(label: "kioskpad_mqtt_messages_ignored_total", dimensions: [("reason", reason)], factory: factory).increment()
    }

    /// The Prometheus text exposition.
    public func exposition() -> String {
        if let replica {
            // -1: no replica, or no trusted time to age it by.
            let now = replica()
            replicaAge.record(now?.age ?? -1)
            replicaVersion.record(Double(now?.version ?? 0))
        }
        return registry.emitToString()
    }
}
