import KeypadHAL

/// An in-memory key matrix driven by a script of contact changes over time, with contact
/// bounce. Reading it follows the electrical paths of a real matrix: without diodes a
/// driven row reaches every column connected to it through pressed keys, so three keys
/// of a rectangle make the fourth corner read as pressed (a phantom), just as on hardware.
public struct MockKeyMatrix: Sendable {
    /// One contact closing or opening at a moment.
    public struct Change: Sendable {
        public let time: Duration
        public let row: Int
        public let column: Int
        public let closed: Bool
    }

    public let rows: Int
    public let columns: Int
    public let hasDiodes: Bool
    public private(set) var changes: [Change] = []

    public init(rows: Int, columns: Int, hasDiodes: Bool = false) {
        self.rows = rows
        self.columns = columns
        self.hasDiodes = hasDiodes
    }

    /// Closes (press) or opens (release) a contact at `time`; with `bounce`, the contact
    /// chatters for that long (toggling every 0.2-1 ms, drawn from `random`) before settling.
    public mutating func set(
        row: Int, column: Int, closed: Bool, at time: Duration, bounce: Duration = .zero,
        random: (Int) -> Int = { _ in 0 }
    ) {
        var moment = time
        var state = closed
        let end = time + bounce
        let inOrder = (changes.last?.time ?? .zero) <= time
        while moment < end {
            changes.append(Change(time: moment, row: row, column: column, closed: state))
            moment += .microseconds(200 + random(800))
            state.toggle()
        }
        changes.append(Change(time: max(end, time), row: row, column: column, closed: closed))
        // Scripts written in time order (100,000-key benchmarks) skip the sort.
        if !inOrder { changes.sort { $0.time < $1.time } }
    }

    public mutating func press(row: Int, column: Int, at time: Duration, bounce: Duration = .zero, random: (Int) -> Int = { _ in 0 }) {
        set(row: row, column: column, closed: true, at: time, bounce: bounce, random: random)
    }

    public mutating func release(row: Int, column: Int, at time: Duration, bounce: Duration = .zero, random: (Int) -> Int = { _ in 0 }) {
        set(row: row, column: column, closed: false, at: time, bounce: bounce, random: random)
    }

    /// Taps `count` random keys of `layout`, one every `spacing` from `start`, each held for
    /// `down`; each press and each release chatters for `bounce()` (drawn just before it).
    /// Keys and chatter come from `random`. Returns the labels tapped, in order.
    public mutating func tapRandomKeys(
        _ count: Int, of layout: MatrixLayout, from start: Duration, down: Duration, spacing: Duration,
        bounce: () -> Duration, random: (Int) -> Int
    ) -> [Character] {
        var labels: [Character] = []
        labels.reserveCapacity(count)
        var time = start
        for _ in 0..<count {
            let row = random(rows)
            let column = random(columns)
            labels.append(layout.key(row: row, column: column).label)
            press(row: row, column: column, at: time, bounce: bounce(), random: random)
            release(row: row, column: column, at: time + down, bounce: bounce(), random: random)
            time += spacing
        }
        return labels
    }

    /// Which contacts are closed at `time`, bit c of entry r for key (r, c).
    public func contacts(at time: Duration) -> [UInt8] {
        var closed = [UInt8](repeating: 0, count: rows)
        for change in changes {
            if change.time > time { break }
            if change.closed { closed[change.row] |= 1 << change.column } else { closed[change.row] &= ~(1 << change.column) }
        }
        return closed
    }

    /// The columns that read active when `driven` rows are active, given closed contacts.
    public func columnsReading(driven: Set<Int>, contacts: [UInt8]) -> UInt8 {
        if hasDiodes {
            return driven.reduce(0) { $0 | contacts[$1] }
        }
        // Without diodes current flows both ways: spread from the driven rows over closed
        // contacts to columns, and from those columns back to other rows, until nothing new.
        var reachedRows = driven
        var reachedColumns: UInt8 = 0
        var grew = true
        while grew {
            grew = false
            for row in reachedRows where contacts[row] & ~reachedColumns != 0 {
                reachedColumns |= contacts[row]
                grew = true
            }
            for row in 0..<rows where !reachedRows.contains(row) && contacts[row] & reachedColumns != 0 {
                reachedRows.insert(row)
                grew = true
            }
        }
        return reachedColumns
    }

    /// The first contact change after `time`, if any.
    public func nextChange(after time: Duration) -> Duration? {
        changes.first { $0.time > time }?.time
    }
}
