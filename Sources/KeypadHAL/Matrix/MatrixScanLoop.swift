/// Runs a ``MatrixScanner`` over a ``MatrixBackend``: while a key is down or a change is
/// being debounced it scans every `interval`; otherwise it drives all rows active and
/// blocks on column edges, so an idle keypad costs no wakeups. After arming it reads the
/// columns once more, so a press that landed in between is not lost.
public final class MatrixScanLoop {
    /// How often a stuck key is re-checked while otherwise idle.
    public static let stuckRecheck: Duration = .milliseconds(200)

    public private(set) var scanner: MatrixScanner
    public let backend: any MatrixBackend
    public let settle: Duration
    public let interval: Duration
    private let timing: any ScanTiming
    public private(set) var scans = 0
    public private(set) var idleWaits = 0
    /// The most GPIO value calls any one full scan issued (2 x rows when bulk calls are used).
    public private(set) var maxValueCallsPerScan = 0

    public init(
        scanner: MatrixScanner, backend: any MatrixBackend, settle: Duration, interval: Duration,
        timing: any ScanTiming
    ) {
        self.scanner = scanner
        self.backend = backend
        self.settle = settle
        self.interval = interval
        self.timing = timing
    }

    /// One full scan: per row, one bulk set and one bulk read (2 x rows value calls).
    public func scan() throws -> [UInt8] {
        let callsBefore = backend.valueCalls
        var sample = [UInt8](repeating: 0, count: backend.rowCount)
        for row in 0..<backend.rowCount {
            try backend.drive(row: row)
            if settle > .zero { timing.sleep(for: settle) }
            sample[row] = try backend.readColumns()
        }
        scans += 1
        maxValueCallsPerScan = max(maxValueCallsPerScan, backend.valueCalls - callsBefore)
        return sample
    }

    /// Scans and waits until `shouldStop` says so, handing every event to `deliver`.
    public func run(shouldStop: () -> Bool, deliver: (ScanEvent) -> Void) throws {
        while !shouldStop() {
            if !scanner.needsScanning {
                try waitUntilActive()
                if shouldStop() { return }
            }
            let sample = try scan()
            for event in scanner.process(sample, at: timing.now) { deliver(event) }
            if scanner.needsScanning { timing.sleep(for: interval) }
        }
    }

    /// Idle: all rows active, then block on column edges.
    private func waitUntilActive() throws {
        try backend.driveAllRows()
        try backend.drainEdges()
        if scanner.hasStuckKey {
            idleWaits += 1
            _ = try backend.waitForEdge(timeout: MatrixScanLoop.stuckRecheck)
            return
        }
        if try backend.readColumns() != 0 { return }
        idleWaits += 1
        _ = try backend.waitForEdge(timeout: nil)
        // Let the first contact settle a little before scanning.
    }
}
