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
