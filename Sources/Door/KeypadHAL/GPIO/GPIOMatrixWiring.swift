import KioskPadCore

/// How a matrix's lines are named in config (`keypad.chip`, `keypad.rows`, `keypad.columns`).
public struct GPIOMatrixWiring: Equatable, Sendable {
    public var chip: String
    public var rows: [LineReference]
    public var columns: [LineReference]
    public var activeLow: Bool

    public init(chip: String, rows: [LineReference], columns: [LineReference], activeLow: Bool = true) {
        self.chip = chip
        self.rows = rows
        self.columns = columns
        self.activeLow = activeLow
    }
}
