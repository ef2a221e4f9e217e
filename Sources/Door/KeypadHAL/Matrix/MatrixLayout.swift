import KioskPadCore

/// A key matrix: rows x columns (each 1...``maxLines``) and one label per key, row by row.
public struct MatrixLayout: Equatable, Sendable {
    /// The one limit on rows and columns (the C shim's `KP_MAX_LINES` is the same number).
    public static let maxLines = MatrixLimits.maxLines

    public let rows: Int
    public let columns: Int
    public let labels: [Character]

    public init(rows: Int, columns: Int, labels: [Character]) {
        precondition((1...MatrixLayout.maxLines).contains(rows) && (1...MatrixLayout.maxLines).contains(columns))
        precondition(labels.count == rows * columns, "one label per key")
        self.rows = rows
        self.columns = columns
        self.labels = labels
    }

    public func key(row: Int, column: Int) -> MatrixKey {
        MatrixKey(row: row, column: column, label: labels[row * columns + column])
    }
}

/// One key of the matrix.
public struct MatrixKey: Hashable, Sendable, CustomStringConvertible {
    public let row: Int
    public let column: Int
    public let label: Character

    public init(row: Int, column: Int, label: Character) {
        self.row = row
        self.column = column
        self.label = label
    }

    public var description: String { "row \(row) column \(column) key '\(label)'" }
}

/// What the scanner reports.
public enum ScanEvent: Equatable, Sendable {
    case pressed(MatrixKey)
    case released(MatrixKey)
    /// Down for `hold_ms`.
    case held(MatrixKey)
    /// Down for `stuck_s`: reported once, then the key is ignored until released.
    case stuck(MatrixKey)
    /// Three or more keys formed a rectangle without diodes: the scan was ambiguous and
    /// produced no events. Reported once per episode, with the keys the scan saw.
    case ghosting([MatrixKey])
}

/// Debounce, hold and stuck timings, and whether the matrix has diodes.
public struct ScannerSettings: Equatable, Sendable {
    public var hasDiodes: Bool
    public var debouncePress: Duration
    public var debounceRelease: Duration
    /// Zero disables hold events.
    public var hold: Duration
    public var stuck: Duration

    public init(
        hasDiodes: Bool = false, debouncePress: Duration = .milliseconds(10),
        debounceRelease: Duration = .milliseconds(10), hold: Duration = .seconds(1), stuck: Duration = .seconds(30)
    ) {
        self.hasDiodes = hasDiodes
        self.debouncePress = debouncePress
        self.debounceRelease = debounceRelease
        self.hold = hold
        self.stuck = stuck
    }
}
