import DoorConfig
import DoorController
import DoorOSDP
import DoorServices
import KeypadHAL
import KioskPadConfig
import KioskPadCore
import Logging

/// The door's outputs for `kioskpad run`: the relay (`door:`), and the feedback a person at
/// the door sees and hears: the OSDP readers' LEDs and buzzer, the buzzer and LEDs on GPIO
/// (`feedback:`).
enum OutputAssembly {
    /// The relay, its line requested at its inactive level (nil without `door:`).
    static func relay(_ configuration: KioskPadConfiguration, bus: TerminalEventBus, logger: Logger) throws -> DoorRelay? {
        guard let config = configuration.daemon.door else { return nil }
        return try DoorRelay(
            output: try GPIOOutputLine(config.relay, key: "door.relay"), defaultUnlock: config.unlock,
            maxUnlock: DaemonServices.maxUnlock(door: config, verifier: configuration.verifier),
            logger: logger,
            observer: { on, seconds in bus.publish(.door(unlocked: on, seconds: seconds)) })
    }

    /// The feedback sinks, in the order the bus feeds them: the OSDP readers' (fed from
    /// `osdpCommands`, sent by the readers' key source), then the GPIO buzzer and LEDs.
    static func feedback(_ daemon: DaemonConfiguration, osdpCommands: OSDPCommandQueue?) throws -> [any TerminalEventSink] {
        var sinks: [any TerminalEventSink] = []
        if let osdpCommands { sinks.append(OSDPReaderFeedback(commands: osdpCommands)) }
        if let config = daemon.feedback {
            sinks.append(
                FeedbackPlayer(
                    buzzer: try config.buzzer.map { try GPIOOutputLine($0, key: "feedback.buzzer") },
                    grantedLED: try config.grantedLED.map { try GPIOOutputLine($0, key: "feedback.led_granted") },
                    deniedLED: try config.deniedLED.map { try GPIOOutputLine($0, key: "feedback.led_denied") }))
        }
        return sinks
    }
}

extension GPIOOutputLine {
    /// Requests the line `configuration` names as an output at its inactive level; errors
    /// name `key` (`door.relay`, `feedback.buzzer`, ...).
    public convenience init(_ configuration: OutputLineConfiguration, key: String) throws {
        try self.init(chip: configuration.chip, line: configuration.line, activeLow: configuration.activeLow, key: key)
    }
}
