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
