import Foundation
import KeypadHAL
import KioskPadConfig
import KioskPadCore
import KioskPadEndpoints
import Yams

/// One output line: `{chip: gpiochip0, line: 26, active_low: false}`.
public struct OutputLineConfiguration: Equatable, Sendable {
    public var chip: String
    public var line: LineReference
    public var activeLow: Bool

    public init(chip: String, line: LineReference, activeLow: Bool = false) {
        self.chip = chip
        self.line = line
        self.activeLow = activeLow
    }
}

/// One input line with edge events: `{chip: gpiochip0, line: 17, active_low: true,
/// debounce_ms: 50}`. `active_low` (the default) requests a pull-up: a switch to ground
/// makes the line active.
public struct InputLineConfiguration: Equatable, Sendable {
    public var chip: String
    public var line: LineReference
    public var activeLow: Bool
    public var debounce: Duration
    /// Which level means the alarm state (door open, tampered): `false` when the input is
    /// a normally closed loop that opens on the event (the default for contact and tamper).
    public var eventWhenActive: Bool

    public init(chip: String, line: LineReference, activeLow: Bool = true, debounce: Duration = .milliseconds(50), eventWhenActive: Bool = true) {
        self.chip = chip
        self.line = line
        self.activeLow = activeLow
        self.debounce = debounce
        self.eventWhenActive = eventWhenActive
    }
}

/// `door:` - the relay that releases the door, and optionally its contact and exit button.
public struct DoorConfiguration: Equatable, Sendable {
    public var relay: OutputLineConfiguration
    public var unlock: Duration
    public var maxUnlock: Duration
    /// `door.contact`: the door position switch (`open_when: inactive` by default).
    public var contact: InputLineConfiguration?
    /// `door.exit_button`: request-to-exit, unlocks for `unlock_s`.
    public var exitButton: InputLineConfiguration?
    /// `door.fire_release`: a fire-alarm contact; while it is in alarm (`released_when`,
    /// default `inactive`: a normally closed contact that opens) the relay is held energised.
    public var fireRelease: InputLineConfiguration?
    /// `door.held_open_s`: how long the door may stand open before `held_open`.
    public var heldOpen: Duration
    /// `door.open_grace_s`: an opening this soon after the relay dropped is not forced.
    public var openGrace: Duration
    /// `door.relock_on_open`: the relay drops as soon as the door opens after an unlock.
    public var relockOnOpen: Bool

    public init(
        relay: OutputLineConfiguration, unlock: Duration, maxUnlock: Duration, contact: InputLineConfiguration? = nil,
        exitButton: InputLineConfiguration? = nil, heldOpen: Duration = .seconds(30), openGrace: Duration = .seconds(3),
        relockOnOpen: Bool = true, fireRelease: InputLineConfiguration? = nil
    ) {
        self.fireRelease = fireRelease
        self.relay = relay
        self.unlock = unlock
        self.maxUnlock = maxUnlock
        self.contact = contact
        self.exitButton = exitButton
        self.heldOpen = heldOpen
        self.openGrace = openGrace
        self.relockOnOpen = relockOnOpen
    }
}

/// `tamper:` - the case tamper switch.
public struct TamperConfiguration: Equatable, Sendable {
    public var input: InputLineConfiguration
    /// `tamper.stop_entry`: while tampered, keys are ignored (the display shows the tamper text).
    public var stopEntry: Bool

    public init(input: InputLineConfiguration, stopEntry: Bool = false) {
        self.input = input
        self.stopEntry = stopEntry
    }
}

/// `feedback:` - optional buzzer and LEDs.
public struct FeedbackConfiguration: Equatable, Sendable {
    public var buzzer: OutputLineConfiguration?
    public var grantedLED: OutputLineConfiguration?
    public var deniedLED: OutputLineConfiguration?

    public init(buzzer: OutputLineConfiguration? = nil, grantedLED: OutputLineConfiguration? = nil, deniedLED: OutputLineConfiguration? = nil) {
        self.buzzer = buzzer
        self.grantedLED = grantedLED
        self.deniedLED = deniedLED
    }
}

/// `events:` - where journal records are forwarded.
public struct EventsConfiguration: Equatable, Sendable {
    public var url: String
    /// `events.urls` after the first, tried in order.
    public var otherURLs: [String] = []
    public var secret: SecretSource?
    public var allowInsecureHTTP: Bool
    /// `events.heartbeat_s`: how often a `status` record is journaled (and so forwarded).
    public var heartbeat: Duration = .seconds(300)
}

/// `metrics:` - the loopback monitoring endpoint.
public struct MetricsConfiguration: Equatable, Sendable {
    public var host: String
    public var port: Int
}

/// `clock.trust`: when the terminal's wall clock counts for access rules (schedules and
/// validity in a local users file). A Raspberry Pi has no real-time clock.
public enum ClockTrust: String, Equatable, Sendable, CaseIterable {
    /// The kernel reports the clock synchronised (adjtimex), as systemd-timesyncd or any
    /// NTP client leaves it.
    case synchronised
    /// A battery-backed RTC module keeps time without a network: the clock always counts.
    case rtc
}

/// The parts only the daemon (`kioskpad run`) uses.
public struct DaemonConfiguration: Equatable, Sendable {
    /// `clock.trust` (default `synchronised`).
    public var clockTrust: ClockTrust = .synchronised
    /// `state_dir`; nil when the file does not set it (run then uses /var/lib/kioskpad).
    public var stateDirectory: String?
    /// `journal.max_bytes`: the journal's size bound on disk.
    public var journalMaxBytes = DaemonConfiguration.defaultJournalMaxBytes
    public var door: DoorConfiguration?
    public var tamper: TamperConfiguration?
    public var feedback: FeedbackConfiguration?
    public var events: EventsConfiguration?
    /// nil when `metrics.listen: off` (run) or not configured (simulate).
    public var metrics: MetricsConfiguration?
    public var metricsConfigured: Bool
    /// `mqtt:`: Home Assistant over MQTT; nil when not configured.
    public var mqtt: MQTTConfiguration?

    public static let defaultStateDirectory = "/var/lib/kioskpad"
    public static let defaultJournalMaxBytes = 4 << 20
    public static let defaultMetrics = MetricsConfiguration(host: "127.0.0.1", port: 9464)

    public init(
        stateDirectory: String? = nil, door: DoorConfiguration? = nil, feedback: FeedbackConfiguration? = nil,
        events: EventsConfiguration? = nil, metrics: MetricsConfiguration? = nil, metricsConfigured: Bool = false
    ) {
        self.stateDirectory = stateDirectory
        self.door = door
        self.feedback = feedback
        self.events = events
        self.metrics = metrics
        self.metricsConfigured = metricsConfigured
    }
}

/// Reads `state_dir`, `door`, `feedback`, `events` and `metrics`.
enum DaemonSection {
    static func read(_ top: MappingReader, baseDirectory: String) -> DaemonConfiguration {
        var daemon = DaemonConfiguration()
        if top.has("state_dir") {
            daemon.stateDirectory = ConfigValues.resolve(top.string("state_dir", default: DaemonConfiguration.defaultStateDirectory), baseDirectory)
        }
        readOutputs(top, into: &daemon)
        if top.has("clock") {
            let reader = top.child("clock")
            daemon.clockTrust = reader.choice("trust", default: ClockTrust.synchronised)
            reader.finish()
        }
        if top.has("journal") {
            let reader = top.child("journal")
            daemon.journalMaxBytes = reader.int("max_bytes", default: DaemonConfiguration.defaultJournalMaxBytes, range: (64 << 10)...(1 << 30))
            reader.finish()
        }
        if top.has("tamper") {
            let reader = top.child("tamper")
            let stopEntry = reader.bool("stop_entry", default: false)
            let input = inputLine(reader, whenKey: "tampered_when")  // reports unknown keys
            if let input { daemon.tamper = TamperConfiguration(input: input, stopEntry: stopEntry) }
        }
        if top.has("events") {
            let reader = top.child("events")
            let allowInsecure = reader.bool("allow_insecure_http", default: false)
            let urls = SiteURLList.read(
                reader, allowInsecureHTTP: allowInsecure, fallback: "https://invalid.invalid/events",
                required: "is required: where journal records are posted (urls: [...] for several instances of the site)")
            let secret = ConfigValues.secretSource(reader, prefix: "secret", baseDirectory: baseDirectory)
            let heartbeat = reader.seconds("heartbeat_s", default: 300, range: 10...86_400)
            reader.finish()
            daemon.events = EventsConfiguration(
                url: urls[0], otherURLs: Array(urls.dropFirst()), secret: secret, allowInsecureHTTP: allowInsecure, heartbeat: heartbeat)
        }
        if top.has("metrics") {
            daemon.metricsConfigured = true
            let reader = top.child("metrics")
            let listen = reader.string("listen", default: "127.0.0.1:9464")
            if listen != "off" {
                if let (host, port) = ConfigValues.hostAndPort(listen) {
                    daemon.metrics = MetricsConfiguration(host: host, port: port)
                } else {
                    reader.log.report(
                        reader.keyPath("listen"), "\(ConfigText.quoted(listen)) is not HOST:PORT or off (e.g. 127.0.0.1:9464)", at: reader.value("listen"))
                }
            }
            reader.finish()
        }
        return daemon
    }

    /// Reads `door` and `feedback` only: the GPIO outputs (`kioskpad door off` reads just these).
    static func readOutputs(_ top: MappingReader, into daemon: inout DaemonConfiguration) {
        if top.has("door") {
            let reader = top.child("door")
            let relay = outputLine(reader, "relay", required: true)
            let unlock = reader.seconds("unlock_s", default: 5, range: 1...300)
            let maxUnlock = reader.seconds("max_unlock_s", default: 30, range: 1...300)
            if maxUnlock < unlock {
                reader.log.report(
                    reader.keyPath("max_unlock_s"), "is less than unlock_s; it caps every unlock, so it must be at least unlock_s",
                    at: reader.value("max_unlock_s"))
            }
            let contact = reader.has("contact") ? inputLine(reader.child("contact"), whenKey: "open_when") : nil
            let exitButton = reader.has("exit_button") ? inputLine(reader.child("exit_button"), whenKey: nil) : nil
            let fireRelease = reader.has("fire_release") ? inputLine(reader.child("fire_release"), whenKey: "released_when") : nil
            let heldOpen = reader.seconds("held_open_s", default: 30, range: 1...3600)
            let openGrace = reader.seconds("open_grace_s", default: 3, range: 0...60)
            let relockOnOpen = reader.bool("relock_on_open", default: true)
            reader.finish()
            if let relay {
                daemon.door = DoorConfiguration(
                    relay: relay, unlock: unlock, maxUnlock: maxUnlock, contact: contact, exitButton: exitButton,
                    heldOpen: heldOpen, openGrace: openGrace, relockOnOpen: relockOnOpen, fireRelease: fireRelease)
            }
        }
        if top.has("feedback") {
            let reader = top.child("feedback")
            daemon.feedback = FeedbackConfiguration(
                buzzer: outputLine(reader, "buzzer", required: false),
                grantedLED: outputLine(reader, "led_granted", required: false),
                deniedLED: outputLine(reader, "led_denied", required: false))
            reader.finish()
        }
    }

    static func outputLine(_ parent: MappingReader, _ key: String, required: Bool) -> OutputLineConfiguration? {
        guard parent.has(key) else {
            if required { parent.log.report(parent.keyPath(key), "is required: {chip: gpiochip0, line: 26, active_low: false}", at: parent.node) }
            return nil
        }
        let reader = parent.child(key)
        defer { reader.finish() }
        let complete = reader.has("chip") && reader.has("line")
        let chip = reader.string("chip", default: "gpiochip0")
        let node = reader.value("line")
        let activeLow = reader.bool("active_low", default: false)
        guard let line = lineReference(in: reader, node: node, complete: complete, example: 26) else { return nil }
        return OutputLineConfiguration(chip: chip, line: line, activeLow: activeLow)
    }

    /// The line of a `{chip, line, ...}` mapping, once both keys are there and `line` is an
    /// offset or a name; otherwise the problem is reported (with `example` as the offset to
    /// show) and the result is nil.
    static func lineReference(in reader: MappingReader, node: Node?, complete: Bool, example: Int) -> LineReference? {
        guard complete else {
            reader.log.report(reader.path, "needs chip and line, e.g. {chip: gpiochip0, line: \(example)}", at: reader.node)
            return nil
        }
        guard case .line(let line) = ConfigValues.line(node) else {
            reader.log.report(reader.keyPath("line"), "must be a line offset 0...1023 or a line name", at: node)
            return nil
        }
        return line
    }
}

/// Which input level means the event: `open_when` / `tampered_when`.
enum InputLevel: String, CaseIterable {
    case active
    case inactive
}

extension DaemonSection {
    /// `{chip, line, active_low, debounce_ms}` and, when `whenKey` is given, that key
    /// (`active` or `inactive`, default `inactive`: a normally closed loop).
    static func inputLine(_ reader: MappingReader, whenKey: String?) -> InputLineConfiguration? {
        defer { reader.finish() }
        let complete = reader.has("chip") && reader.has("line")
        let chip = reader.string("chip", default: "gpiochip0")
        let node = reader.value("line")
        let activeLow = reader.bool("active_low", default: true)
        let debounce = reader.int("debounce_ms", default: 50, range: 1...1000)
        let when = whenKey.map { reader.choice($0, default: InputLevel.inactive) } ?? .active
        guard let line = lineReference(in: reader, node: node, complete: complete, example: 17) else { return nil }
        return InputLineConfiguration(
            chip: chip, line: line, activeLow: activeLow, debounce: .milliseconds(debounce), eventWhenActive: when == .active)
    }
}

/// What a door input is for; its raw value is its config key.
public enum DoorInputRole: String, Sendable, CaseIterable {
    case contact = "door.contact"
    case exitButton = "door.exit_button"
    case fireRelease = "door.fire_release"
    case tamper
}

extension DaemonConfiguration {
    /// Every configured GPIO input with what it is for (whose raw value is its config key).
    public var inputLines: [(role: DoorInputRole, line: InputLineConfiguration)] {
        var lines: [(role: DoorInputRole, line: InputLineConfiguration)] = []
        if let contact = door?.contact { lines.append((.contact, contact)) }
        if let exit = door?.exitButton { lines.append((.exitButton, exit)) }
        if let fire = door?.fireRelease { lines.append((.fireRelease, fire)) }
        if let tamper { lines.append((.tamper, tamper.input)) }
        return lines
    }

    /// Every configured GPIO output with its config key, the door relay first.
    public var outputLines: [(key: String, line: OutputLineConfiguration)] {
        var lines: [(key: String, line: OutputLineConfiguration)] = []
        if let door { lines.append(("door.relay", door.relay)) }
        if let feedback {
            if let buzzer = feedback.buzzer { lines.append(("feedback.buzzer", buzzer)) }
            if let led = feedback.grantedLED { lines.append(("feedback.led_granted", led)) }
            if let led = feedback.deniedLED { lines.append(("feedback.led_denied", led)) }
        }
        return lines
    }
}
