/// The matrix scanner's state machine (pure; in the style of Zephyr's input_kbd_matrix).
/// Feed it one full scan at a time: for each row, a bitmask of the columns that read
/// active while that row was driven, and when that row was read. It owns per-key debounce
/// (a change must persist, in every scan, for the press or release time since it began),
/// ghost rejection, and hold and stuck detection.
public struct MatrixScanner: Sendable {
    public let layout: MatrixLayout
    public let settings: ScannerSettings

    private var stable: [UInt8]
    /// When each key's raw reading began to differ from its stable state (nil: no change).
    private var changedAt: [Duration?]
    private var downSince: [Duration?]
    private var heldReported: [Bool]
    private var stuckReported: [Bool]
    private var ghosting = false

    public init(layout: MatrixLayout, settings: ScannerSettings) {
        self.layout = layout
        self.settings = settings
        let keys = layout.rows * layout.columns
        stable = Array(repeating: 0, count: layout.rows)
        changedAt = Array(repeating: nil, count: keys)
        downSince = Array(repeating: nil, count: keys)
        heldReported = Array(repeating: false, count: keys)
        stuckReported = Array(repeating: false, count: keys)
    }

    /// Processes one full scan in which row r was read at `times[r]`; returns the events it
    /// causes. `pressStartedAt` is when the press that woke an idle scan began (the kernel's
    /// edge timestamp, or the idle read that found `pressColumns` already active): a key
    /// in those columns first seen down in this scan counts its debounce from then, not from
    /// when the scan got to it, because its column has read active since.
    public mutating func process(
        _ sample: [UInt8], readAt times: [Duration], pressStartedAt edge: Duration? = nil, pressColumns: UInt8 = .max
    ) -> [ScanEvent] {
        precondition(sample.count == layout.rows && times.count == layout.rows)
        let now = times.max() ?? .zero
        if !settings.hasDiodes && MatrixScanner.hasGhost(sample) {
            // Ambiguous: a phantom key may be in this scan. Make no new events.
            guard !ghosting else { return [] }
            ghosting = true
            return [.ghosting(keys(in: sample))]
        }
        ghosting = false
        var events: [ScanEvent] = []
        for row in 0..<layout.rows {
            let readAt = times[row]
            for column in 0..<layout.columns {
                let index = row * layout.columns + column
                let bit = UInt8(1) << column
                let raw = sample[row] & bit != 0
                let current = stable[row] & bit != 0
                guard raw != current else {
                    changedAt[index] = nil
                    continue
                }
                let since =
                    changedAt[index] ?? (raw ? MatrixScanner.pressStart(column: column, readAt: readAt, edge: edge, pressColumns: pressColumns) : nil) ?? readAt
                changedAt[index] = since
                guard readAt - since >= debounceTime(pressing: raw) else { continue }
                events.append(accept(row: row, column: column, down: raw, at: readAt))
            }
        }
        events += holdAndStuck(at: now)
        return events
    }

    /// The presses that one row's reading settles on its own, before the rest of the scan is
    /// read, so a key due now is not held back by the rows read after its own. Only a row
    /// with exactly one active column qualifies (any row, with diodes): a phantom key needs a
    /// second real key in its own row, which reads active too. A key qualifies when its press
    /// is being debounced, or its column is in `pressColumns` of the press that woke the
    /// scan (dated `pressStartedAt`, as in ``process(_:readAt:pressStartedAt:pressColumns:)``),
    /// and has persisted for the press time. Nothing is decided early while the last scan
    /// ghosted. ``process(_:readAt:pressStartedAt:pressColumns:)`` then finds the key down.
    public mutating func earlyPresses(
        row: Int, columns: UInt8, readAt: Duration, pressStartedAt edge: Duration? = nil, pressColumns: UInt8 = .max
    ) -> [ScanEvent] {
        guard !ghosting, settings.hasDiodes || columns.nonzeroBitCount == 1 else { return [] }
        var events: [ScanEvent] = []
        for column in 0..<layout.columns where columns & ~stable[row] & (1 << column) != 0 {
            let woke = MatrixScanner.pressStart(column: column, readAt: readAt, edge: edge, pressColumns: pressColumns)
            guard let since = changedAt[row * layout.columns + column] ?? woke, readAt - since >= settings.debouncePress else { continue }
            events.append(accept(row: row, column: column, down: true, at: readAt))
        }
        return events
    }

    /// When the press of a key in `column`, first seen down at `readAt`, began: the date of
    /// the press that woke the scan (`edge`, never later than the read) when `column` is one
    /// of its `pressColumns`; else nil.
    private static func pressStart(column: Int, readAt: Duration, edge: Duration?, pressColumns: UInt8) -> Duration? {
        pressColumns & (1 << column) != 0 ? edge.map { min($0, readAt) } : nil
    }

    /// Makes a debounced change stable and returns its event.
    private mutating func accept(row: Int, column: Int, down: Bool, at readAt: Duration) -> ScanEvent {
        let index = row * layout.columns + column
        changedAt[index] = nil
        stable[row] ^= 1 << column
        let key = layout.key(row: row, column: column)
        if down {
            downSince[index] = readAt
            return .pressed(key)
        }
        downSince[index] = nil
        heldReported[index] = false
        stuckReported[index] = false
        return .released(key)
    }

    /// True while a key is down (and not given up as stuck) or a change is being debounced:
    /// the loop must keep scanning. False means it may idle on edge events.
    public var needsScanning: Bool {
        if changedAt.contains(where: { $0 != nil }) { return true }
        for index in downSince.indices where downSince[index] != nil && !stuckReported[index] { return true }
        return false
    }

    /// The change being debounced that falls due first: its key's row, and the earliest time
    /// at which it may become an event (when it began plus the press or release time); nil
    /// when none is pending. The loop scans then, starting with that row, rather than at its
    /// next period, so an event is not up to one period late.
    public var nextDecision: (row: Int, due: Duration)? {
        var first: (row: Int, due: Duration)?
        for index in changedAt.indices {
            guard let since = changedAt[index] else { continue }
            let row = index / layout.columns
            let isDown = stable[row] & (1 << (index % layout.columns)) != 0
            let due = since + debounceTime(pressing: !isDown)
            if let earlier = first, earlier.due <= due { continue }
            first = (row, due)
        }
        return first
    }

    /// How long a change must persist: the press time for a key going down, else the release time.
    private func debounceTime(pressing: Bool) -> Duration {
        pressing ? settings.debouncePress : settings.debounceRelease
    }

    /// True while a stuck key is down: idle waits must time out now and then to see it released.
    public var hasStuckKey: Bool {
        downSince.indices.contains { downSince[$0] != nil && stuckReported[$0] }
    }

    /// The keys currently down after debouncing.
    public var pressedKeys: [MatrixKey] {
        (0..<layout.rows).flatMap { row in
            (0..<layout.columns).filter { stable[row] & (1 << $0) != 0 }.map { layout.key(row: row, column: $0) }
        }
    }

    /// Without diodes, any two rows that share two or more active columns form a rectangle
    /// whose fourth corner may be a phantom.
    public static func hasGhost(_ sample: [UInt8]) -> Bool {
        for first in sample.indices where sample[first].nonzeroBitCount >= 2 {
            for second in sample.indices where second > first && (sample[first] & sample[second]).nonzeroBitCount >= 2 {
                return true
            }
        }
        return false
    }

    private func keys(in sample: [UInt8]) -> [MatrixKey] {
        (0..<layout.rows).flatMap { row in
            (0..<layout.columns).filter { sample[row] & (1 << $0) != 0 }.map { layout.key(row: row, column: $0) }
        }
    }

    private mutating func holdAndStuck(at now: Duration) -> [ScanEvent] {
        var events: [ScanEvent] = []
        for index in downSince.indices {
            guard let since = downSince[index] else { continue }
            let key = layout.key(row: index / layout.columns, column: index % layout.columns)
            if settings.hold > .zero && !heldReported[index] && now - since >= settings.hold {
                heldReported[index] = true
                events.append(.held(key))
            }
            if !stuckReported[index] && now - since >= settings.stuck {
                stuckReported[index] = true
                events.append(.stuck(key))
            }
        }
        return events
    }
}
