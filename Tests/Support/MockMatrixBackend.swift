import KeypadHAL

/// A ``MatrixBackend`` over a ``MockKeyMatrix`` in virtual time: tests run the very same
/// scanner core and scan loop as the GPIO backend. Waiting for an edge jumps virtual time
/// to the next scripted contact change.
public final class MockMatrixBackend: MatrixBackend {
    public let matrix: MockKeyMatrix
    public let timing: VirtualScanTiming
    public private(set) var valueCalls = 0
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
        valueCalls += 1
        driven = [row]
    }

    public func driveAllRows() throws {
        valueCalls += 1
        driven = Set(0..<matrix.rows)
    }

    public func readColumns() throws -> UInt8 {
        valueCalls += 1
        catchUp()
        return matrix.columnsReading(driven: driven, contacts: contacts)
    }

    public func drainEdges() throws {}

    public func waitForEdge(timeout: Duration?) throws -> Bool {
        catchUp()
        let next = cursor < matrix.changes.count ? matrix.changes[cursor].time : nil
        switch (next, timeout) {
        case (let next?, let timeout?) where next > timing.now + timeout:
            timing.sleep(for: timeout)
            return false
        case (let next?, _):
            timing.sleep(for: next - timing.now)
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
}
