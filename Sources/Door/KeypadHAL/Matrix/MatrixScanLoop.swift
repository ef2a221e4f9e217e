/// Runs a ``MatrixScanner`` over a ``MatrixBackend``. While a key is down or a change is
/// being debounced it scans on a fixed period, each scan starting at an absolute deadline
/// (a late scan does not push the next one back); otherwise it drives all rows active and
/// blocks on column edges, so an idle keypad costs no wake-ups. With every row driven each
/// edge is the contact itself changing: after the edge that ends an idle wait, the loop
/// waits until the columns have been still for ``chatterQuiet`` (at most half the press
/// time), and dates the press from the last edge (the kernel's timestamp). So the debounce
/// runs from when the contact last changed, not from the first scan, and that scan reads a
/// settled contact. After arming it reads the columns once more, so a press that landed in
/// between is not lost; a column found active by that read dates its press from the read
/// (a bounce that a scan saw open restarts the debounce there, not one slow scan later).
///
/// Each row is settled by observation rather than by a long fixed sleep: after driving a
/// row it waits `settle`, reads, and when the reading differs from the last scan's it reads
/// again until two reads agree (after a recheck, the reading before it is the first). A
/// column that reads active for this row and was active just before (for the previous row,
/// or for all rows after an idle wait) may still be held by the previous row (a slow line):
/// then every row is released, the loop waits (bounded by ``releaseTimeout``) until that
/// column reads inactive, and reads the row again. So a slow line makes a recheck, never a
/// phantom key.
///
/// A change being debounced is decided as soon as it can be: the scan starts with its row,
/// drives it and reads it as the change falls due (one sleep: settle and the wait for the
/// due time together), and a press that row's reading proves real on its own is delivered
/// before the other rows are read.
public final class MatrixScanLoop {
    /// How often a stuck key is re-checked while otherwise idle.
    public static let stuckRecheck: Duration = .milliseconds(200)
    /// How long a column may stay active with no row driven before it counts as held by
    /// something else (a short or a stuck line): its reading is then taken as it is.
    public static let releaseTimeout: Duration = .milliseconds(5)
    /// How long the columns must stay still, after the edge that ends an idle wait, before
    /// the first scan: contact chatter has ended (it toggles faster than this).
    public static let chatterQuiet: Duration = .microseconds(1500)
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
    /// The one row driven just before the current drive (nil: all rows or none).
    private var rowBefore: Int?
    /// When the press that ended the last idle wait began (the kernel's edge timestamp, or
    /// the idle read that found a column active), and the columns it dates.
    private var pressStartedAt: Duration?
    private var pressColumns: UInt8 = .max
    /// How long the last full scan took.
    private var scanTime: Duration = .zero

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

    /// One full scan, from `firstRow` round to the row before it: per row, one bulk set and
    /// one bulk read, plus the extra reads and sets of settling and rechecks. A press that a
    /// row's reading settles on its own (``MatrixScanner/earlyPresses(row:columns:readAt:)``)
    /// goes to `deliver` as soon as that row is read. Returns each row's columns and when
    /// that row was read.
    /// With `due`, the first row is the row of a change falling due then: it is read no
    /// earlier than `due`.
    public func scan(
        firstRow: Int = 0, due: Duration? = nil, deliver: (ScanEvent) -> Void = { _ in }
    ) throws -> (sample: [UInt8], times: [Duration]) {
        let callsBefore = backend.valueCalls
        let rechecksBefore = rechecks
        let rereadsBefore = rereads
        let rowCount = backend.rowCount
        var sample = [UInt8](repeating: 0, count: rowCount)
        var times = [Duration](repeating: .zero, count: rowCount)
        let scanStart = timing.now
        for step in 0..<rowCount {
            let row = (firstRow + step) % rowCount
            let readNoEarlierThan = step == 0 ? due : nil
            var columns = try read(row: row, notBefore: readNoEarlierThan)
            // Read twice in a row (a scan that starts where the last one ended), a row
            // cannot be held by another one.
            let lingering = row == rowBefore ? 0 : columns & activeBefore
            if lingering != 0 {
                rechecks += 1
                try waitUntilReleased(lingering)
                // The reading before the recheck is the first of two that must agree.
                columns = try read(row: row, notBefore: readNoEarlierThan, expecting: columns)
            }
            sample[row] = columns
            times[row] = timing.now
            activeBefore = columns
            rowBefore = row
            let early = scanner.earlyPresses(
                row: row, columns: columns, readAt: times[row], pressStartedAt: pressStartedAt, pressColumns: pressColumns)
            for event in early { deliver(event) }
        }
        previous = sample
        scans += 1
        scanTime = timing.now - scanStart
        if rechecks == rechecksBefore && rereads == rereadsBefore {
            maxValueCallsPerScan = max(maxValueCallsPerScan, backend.valueCalls - callsBefore)
        }
        return (sample, times)
    }

    /// Drives `row`, waits `settle` (or until `notBefore`, when later), reads; if the
    /// reading differs from `expecting` (by default the last scan's), reads again until two
    /// consecutive reads agree (at most ``maxSettleReads``).
    private func read(row: Int, notBefore: Duration?, expecting: UInt8? = nil) throws -> UInt8 {
        try backend.drive(row: row)
        timing.wait(until: max(timing.now + settle, notBefore ?? .zero))
        var columns = try backend.readColumns()
        var reads = 1
        while columns != expecting ?? previous[row] && reads < MatrixScanLoop.maxSettleReads {
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
        rowBefore = nil
    }

    /// Scans and waits until `shouldStop` says so, handing every event to `deliver`.
    public func run(shouldStop: () -> Bool, deliver: (ScanEvent) -> Void) throws {
        // The change falling due first after the last scan: the next scan starts with its row,
        // and when it is timed for that change, reads the row at `decisiveDue`.
        var decision: (row: Int, due: Duration)?
        var decisiveDue: Duration?
        while !shouldStop() {
            if !scanner.needsScanning {
                try waitUntilActive()
                if shouldStop() { return }
            }
            let start = timing.now
            let (sample, times) = try scan(firstRow: decision?.row ?? 0, due: decisiveDue, deliver: deliver)
            let events = scanner.process(sample, readAt: times, pressStartedAt: pressStartedAt, pressColumns: pressColumns)
            pressStartedAt = nil
            pressColumns = .max
            for event in events { deliver(event) }
            decision = scanner.nextDecision
            decisiveDue = nil
            guard scanner.needsScanning else { continue }
            if let due = decision?.due, isDecisive(due, scanStartedAt: start) {
                decisiveDue = due
            } else {
                timing.wait(until: start + interval)
            }
        }
    }

    /// Whether the next scan is the one that decides the change falling due at `due`: it
    /// starts now and reads that row at `due`, rather than one period after `start`. So
    /// when the row would otherwise be read after `due` (the period ends later than `due`
    /// less `settle`) or too early and not again until a scan later (a scan started now
    /// would still be running then). A due time already past when the last scan began (a
    /// ghosted scan left it pending) waits the whole period.
    private func isDecisive(_ due: Duration, scanStartedAt start: Duration) -> Bool {
        guard due > start else { return false }
        let readable = due - settle
        return readable < start + interval || readable < timing.now + scanTime
    }

    /// Idle: all rows active, then block on column edges. Records when the waking press began.
    private func waitUntilActive() throws {
        try backend.driveAllRows()
        _ = try backend.drainEdges()
        activeBefore = UInt8.max
        rowBefore = nil
        if scanner.hasStuckKey {
            idleWaits += 1
            _ = try backend.waitForEdge(timeout: MatrixScanLoop.stuckRecheck)
            return
        }
        let active = try backend.readColumns()
        if active != 0 {
            pressStartedAt = timing.now
            pressColumns = active
            return
        }
        idleWaits += 1
        guard try backend.waitForEdge(timeout: nil), let edges = try backend.drainEdges() else { return }
        pressStartedAt = try lastEdgeOfChatter(edges)
    }

    /// With every row driven, each column edge is a contact changing, so the chatter that
    /// follows a press is seen whole: waits until the columns have been quiet for
    /// ``chatterQuiet`` (and no longer than half the press time after the first edge), so that
    /// the scan reads a settled contact, and returns the last edge's time (nil when the
    /// timestamps are not on our clock). The debounce counts from there: from when the
    /// contact last changed.
    private func lastEdgeOfChatter(_ edges: EdgeSpan) throws -> Duration? {
        guard let first = plausibleEdgeTime(edges.first), var last = plausibleEdgeTime(edges.last) else { return nil }
        let latest = first + scanner.settings.debouncePress / 2
        while true {
            let quietUntil = min(last + MatrixScanLoop.chatterQuiet, latest)
            let now = timing.now
            // Woken with no edge (a stop was asked for), or timed out: quiet.
            guard quietUntil > now, try backend.waitForEdge(timeout: quietUntil - now),
                let more = try backend.drainEdges(), let edge = plausibleEdgeTime(more.last)
            else { return last }
            last = edge
        }
    }

    /// The edge's timestamp when it is on our clock and recent (an old kernel stamping v1
    /// events with the wall clock gives a time that is neither); else nil.
    private func plausibleEdgeTime(_ edge: Duration) -> Duration? {
        let now = timing.now
        return edge <= now && now - edge < .seconds(1) ? edge : nil
    }
}
