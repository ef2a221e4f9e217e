/// Runs a ``MatrixScanner`` over a ``MatrixBackend``. While a key is down or a change is
/// being debounced it scans on a fixed period, each scan starting at an absolute deadline
/// (a late scan does not push the next one back); otherwise it drives all rows active and
/// blocks on column edges, so an idle keypad costs no wake-ups. The edge that ends an idle
/// wait dates the press (the kernel's timestamp), so the debounce runs from the contact,
/// not from the first scan. After arming it reads the columns once more, so a press that
/// landed in between is not lost.
///
/// Each row is settled by observation rather than by a long fixed sleep: after driving a
/// row it waits `settle`, reads, and when the reading differs from the last scan's it reads
/// again until two reads agree. A column that reads active for this row and was active just
/// before (for the previous row, or for all rows after an idle wait) may still be held by
/// the previous row (a slow line): then every row is released, the loop waits (bounded by
/// ``releaseTimeout``) until that column reads inactive, and reads the row again. So a
/// slow line makes a recheck, never a phantom key.
public final class MatrixScanLoop {
    /// How often a stuck key is re-checked while otherwise idle.
    public static let stuckRecheck: Duration = .milliseconds(200)
    /// How long a column may stay active with no row driven before it counts as held by
    /// something else (a short or a stuck line): its reading is then taken as it is.
    public static let releaseTimeout: Duration = .milliseconds(5)
    /// The most reads of one row while waiting for two consecutive reads to agree.
    public static let maxSettleReads = 4
    /// The shortest pause between two reads while waiting for a line.
    static let minimumPause: Duration = .microseconds(20)

    public private(set) var scanner: MatrixScanner
    public let backend: any MatrixBackend
    public let settle: Duration
    /// The pause between two reads of a line being waited for: `settle`, but never less
    /// than ``minimumPause``.
    private let pause: Duration
    /// Scan period while scanning (start to start).
    public let interval: Duration
    private let timing: any ScanTiming
    public private(set) var scans = 0
    public private(set) var idleWaits = 0
    /// Rows read again because a column was still active from the row driven before.
    public private(set) var rechecks = 0
    /// The most GPIO value calls a steady scan issued (no row read twice, no recheck):
    /// 2 x rows (one bulk set and one bulk read per row).
    public private(set) var maxValueCallsPerScan = 0
    /// Extra reads made while waiting for two reads of a row to agree.
    public private(set) var rereads = 0
    /// Each row's reading in the last scan.
    private var previous: [UInt8]
    /// The columns that read active just before the current drive (all, after an idle wait).
    private var activeBefore: UInt8 = 0
    /// When the press that ended the last idle wait began (the kernel's edge timestamp).
    private var pressStartedAt: Duration?

    public init(
        scanner: MatrixScanner, backend: any MatrixBackend, settle: Duration, interval: Duration,
        timing: any ScanTiming
    ) {
        self.scanner = scanner
        self.backend = backend
        self.settle = settle
        pause = max(settle, MatrixScanLoop.minimumPause)
        self.interval = interval
        self.timing = timing
        previous = Array(repeating: 0, count: backend.rowCount)
    }

    /// One full scan: per row, one bulk set and one bulk read, plus the extra reads and sets
    /// of settling and rechecks. Returns each row's columns and when that row was read.
    public func scan() throws -> (sample: [UInt8], times: [Duration]) {
        let callsBefore = backend.valueCalls
        let rechecksBefore = rechecks
        let rereadsBefore = rereads
        var sample = [UInt8](repeating: 0, count: backend.rowCount)
        var times = [Duration](repeating: .zero, count: backend.rowCount)
        for row in 0..<backend.rowCount {
            var columns = try read(row: row)
            let lingering = columns & activeBefore
            if lingering != 0 {
                rechecks += 1
                try waitUntilReleased(lingering)
                columns = try read(row: row)
            }
            sample[row] = columns
            times[row] = timing.now
            activeBefore = columns
        }
        previous = sample
        scans += 1
        if rechecks == rechecksBefore && rereads == rereadsBefore {
            maxValueCallsPerScan = max(maxValueCallsPerScan, backend.valueCalls - callsBefore)
        }
        return (sample, times)
    }

    /// Drives `row`, waits `settle`, reads; if the reading differs from the last scan's,
    /// reads again until two consecutive reads agree (at most ``maxSettleReads``).
    private func read(row: Int) throws -> UInt8 {
        try backend.drive(row: row)
        timing.wait(until: timing.now + settle)
        var columns = try backend.readColumns()
        var reads = 1
        while columns != previous[row] && reads < MatrixScanLoop.maxSettleReads {
            timing.wait(until: timing.now + pause)
            let again = try backend.readColumns()
            reads += 1
            rereads += 1
            if again == columns { break }
            columns = again
        }
        return columns
    }

    /// Releases every row and waits (bounded) until the `columns` read inactive.
    private func waitUntilReleased(_ columns: UInt8) throws {
        try backend.releaseAllRows()
        let deadline = timing.now + MatrixScanLoop.releaseTimeout
        repeat {
            timing.wait(until: timing.now + pause)
        } while try backend.readColumns() & columns != 0 && timing.now < deadline
        activeBefore = 0
    }

    /// Scans and waits until `shouldStop` says so, handing every event to `deliver`.
    public func run(shouldStop: () -> Bool, deliver: (ScanEvent) -> Void) throws {
        while !shouldStop() {
            if !scanner.needsScanning {
                try waitUntilActive()
                if shouldStop() { return }
            }
            let start = timing.now
            let (sample, times) = try scan()
            let events = scanner.process(sample, readAt: times, pressStartedAt: pressStartedAt)
            pressStartedAt = nil
            for event in events { deliver(event) }
            if scanner.needsScanning { timing.wait(until: nextScan(after: start)) }
        }
    }

    /// One period after `start`, or sooner when a debounced change falls due before that. A
    /// due time already past (a ghosted scan left it pending) waits the whole period.
    private func nextScan(after start: Duration) -> Duration {
        let periodic = start + interval
        guard let due = scanner.nextDecision, due < periodic, due > timing.now else { return periodic }
        return due
    }

    /// Idle: all rows active, then block on column edges. Records when the waking press began.
    private func waitUntilActive() throws {
        try backend.driveAllRows()
        _ = try backend.drainEdges()
        activeBefore = UInt8.max
        if scanner.hasStuckKey {
            idleWaits += 1
            _ = try backend.waitForEdge(timeout: MatrixScanLoop.stuckRecheck)
            return
        }
        if try backend.readColumns() != 0 { return }
        idleWaits += 1
        guard try backend.waitForEdge(timeout: nil) else { return }
        pressStartedAt = plausibleEdgeTime(try backend.drainEdges())
    }

    /// The edge's timestamp when it is on our clock and recent (an old kernel stamping v1
    /// events with the wall clock gives a time that is neither); else nil.
    private func plausibleEdgeTime(_ edge: Duration?) -> Duration? {
        guard let edge else { return nil }
        let now = timing.now
        return edge <= now && now - edge < .seconds(1) ? edge : nil
    }
}
