/// Why the GPIO keypad could not start, naming the config key and the fix.
public struct GPIOKeypadError: Error, CustomStringConvertible, Equatable {
    public let key: String
    public let message: String
    /// True when only a config change can fix it (a line that the chip does not have, a build
    /// without libgpiod); a missing chip, a busy line or a permission may clear by themselves.
    public let needsConfigChange: Bool

    public init(key: String, message: String, needsConfigChange: Bool = false) {
        self.key = key
        self.message = message
        self.needsConfigChange = needsConfigChange
    }

    public var description: String { "\(key): \(message)" }
}

/// How a matrix's lines are named in config (`keypad.chip`, `keypad.rows`, `keypad.columns`).
public struct GPIOMatrixWiring: Equatable, Sendable {
    /// A line by offset, or by its line name.
    public enum Line: Equatable, Sendable, CustomStringConvertible {
        case offset(Int)
        case name(String)

        public var description: String {
            switch self {
            case .offset(let offset): return "line \(offset)"
            case .name(let name): return "line '\(name)'"
            }
        }
    }

    public var chip: String
    public var rows: [Line]
    public var columns: [Line]
    public var activeLow: Bool

    public init(chip: String, rows: [Line], columns: [Line], activeLow: Bool = true) {
        self.chip = chip
        self.rows = rows
        self.columns = columns
        self.activeLow = activeLow
    }
}
