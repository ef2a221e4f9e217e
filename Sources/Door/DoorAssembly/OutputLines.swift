import KeypadHAL
import KioskPadConfig

extension GPIOOutputLine {
    /// Requests the line `configuration` names as an output at its inactive level; errors
    /// name `key` (`door.relay`, `feedback.buzzer`, ...).
    public convenience init(_ configuration: OutputLineConfiguration, key: String) throws {
        try self.init(chip: configuration.chip, line: configuration.line, activeLow: configuration.activeLow, key: key)
    }
}
