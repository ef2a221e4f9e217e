import KeypadHAL
import KioskPadConfig

extension GPIOOutputLine {
    /// Requests the line `configuration` names as an output at its inactive level; errors
    /// name `key` (`door.relay`, `feedback.buzzer`, ...).
    public convenience init(_ configuration: OutputLineConfiguration, key: String) throws {
        let line: GPIOMatrixWiring.Line
        switch configuration.line {
        case .offset(let offset): line = .offset(offset)
        case .name(let name): line = .name(name)
        }
        try self.init(chip: configuration.chip, line: line, activeLow: configuration.activeLow, key: key)
    }
}

extension DaemonConfiguration {
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
