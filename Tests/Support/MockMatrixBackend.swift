import KeypadHAL

/// A ``MatrixBackend`` over a ``MockKeyMatrix`` in virtual time: tests run the very same
/// scanner core and scan loop as the GPIO backend. Waiting for an edge jumps virtual time
/// to the next scripted contact change, plus `wakeLatency` (the scheduler's delay); every
/// contact change is an edge with the change's own time, as the kernel's timestamp is.
/// Columns in `slowColumns` follow a change of the driven rows `columnLag` late: a column
/// active for the rows driven before stays active that long (a slow line that can fake a
/// key in the next row).
public final class MockMatrixBackend: MatrixBackend {
    public let matrix: MockKeyMatrix
    public let timing: VirtualScanTiming
    public var wakeLatency: Duration = .zero
    public var slowColumns: UInt8 = 0
    public var columnLag: Duration = .zero
    /// Virtual time each value call takes.
    public var callCost: Duration = .zero
    public private(set) var valueCalls = 0
    /// The first scripted change not yet drained as an edge.
    private var edgeCursor = 0
    /// What the columns read for the rows driven before the last drive change, and when it changed.
    private var heldBefore: UInt8 = 0
    private var drivenChangedAt: Duration = .zero
    /// True once a wait found no further scripted change: the script has been played out.
    public private(set) var exhausted = false
    private var driven: Set<Int> = []
    /// Contact state replayed up to `cursor` (virtual time only moves forward).
    private var contacts: [UInt8]
    private var cursor = 0

    public init(matrix: MockKeyMatrix, timing: VirtualScanTiming) {
        self.matrix = matrix
        self.timing = timing
        contacts = Array(repeating: 0, count: matrix.rows)
    }

    private func catchUp() {
        let changes = matrix.changes
        while cursor < changes.count && changes[cursor].time <= timing.now {
            let change = changes[cursor]
            if change.closed {
                contacts[change.row] |= 1 << change.column
            } else {
                contacts[change.row] &= ~(1 << change.column)
            }
            cursor += 1
        }
    }

    public var rowCount: Int { matrix.rows }
    public var columnCount: Int { matrix.columns }

    public func drive(row: Int) throws {
        setDriven([row])
    }

    public func driveAllRows() throws {
        setDriven(Set(0..<matrix.rows))
    }

    public func releaseAllRows() throws {
        setDriven([])
    }

    private func setDriven(_ rows: Set<Int>) {
        valueCalls += 1
        catchUp()
        heldBefore = reading()
        driven = rows
        drivenChangedAt = timing.now
        timing.sleep(for: callCost)
    }

    private func reading() -> UInt8 {
        let now = matrix.columnsReading(driven: driven, contacts: contacts)
        guard timing.now - drivenChangedAt < columnLag else { return now }
        return now | (heldBefore & slowColumns)
    }

    public func readColumns() throws -> UInt8 {
        valueCalls += 1
        catchUp()
        let columns = reading()
        timing.sleep(for: callCost)
        return columns
    }

    public func drainEdges() throws -> EdgeSpan? {
        let changes = matrix.changes
        var span: EdgeSpan?
        while edgeCursor < changes.count && changes[edgeCursor].time <= timing.now {
            span = EdgeSpan(first: span?.first ?? changes[edgeCursor].time, last: changes[edgeCursor].time)
            edgeCursor += 1
        }
        return span
    }

    public func waitForEdge(timeout: Duration?) throws -> Bool {
        catchUp()
        let next = cursor < matrix.changes.count ? matrix.changes[cursor].time : nil
        switch (next, timeout) {
        case (let next?, let timeout?) where next > timing.now + timeout:
            timing.sleep(for: timeout)
            return false
        case (let next?, _):
            timing.sleep(for: next - timing.now + wakeLatency)
            return true
        case (nil, let timeout?):
            timing.sleep(for: timeout)
            exhausted = true
            return false
        case (nil, nil):
            exhausted = true
            return false
        }
    }

    public func wake() {}
}

/// Virtual time for the scan loop: sleeping just moves the clock.
public final class VirtualScanTiming: ScanTiming {
    public private(set) var now: Duration = .zero

    public init() {}

    public func sleep(for duration: Duration) {
        now += duration
    }

    public func wait(until deadline: Duration) {
        now = max(now, deadline)
    }
}
