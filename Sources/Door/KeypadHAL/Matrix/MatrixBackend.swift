/// The things a matrix backend does, and nothing else (debounce, settling and ghost logic
/// live in ``MatrixScanLoop`` and ``MatrixScanner``): drive one row, all rows or no row
/// active, read all columns at once, and wait for a column edge. Implementations: libgpiod
/// (real chips), mock (tests).
public protocol MatrixBackend: AnyObject {
    var rowCount: Int { get }
    var columnCount: Int { get }
    /// Makes only `row` active; every other row is released (never driven to the
    /// opposite level), in one bulk call.
    func drive(row: Int) throws
    /// Makes every row active (idle detection: any key pulls its column), in one bulk call.
    func driveAllRows() throws
    /// Releases every row, in one bulk call: with no row active every column should read
    /// inactive, so a column that still reads active is a slow line (or a short).
    func releaseAllRows() throws
    /// Columns that read active, bit c for column c, in one bulk call.
    func readColumns() throws -> UInt8
    /// Discards the column edge events queued so far (scanning itself makes edges) and
    /// returns when the earliest and the latest of them happened, on the monotonic clock
    /// (nil: none queued).
    func drainEdges() throws -> EdgeSpan?
    /// Blocks until a column edge, a ``wake()``, or `timeout` (nil: forever). True unless it timed out.
    func waitForEdge(timeout: Duration?) throws -> Bool
    /// Makes a blocked ``waitForEdge(timeout:)`` return (from another thread).
    func wake()
    /// GPIO value calls so far (bulk sets plus bulk reads), for the scan-cost check.
    var valueCalls: Int { get }
}

/// When the first and the last of a batch of column edges happened (the kernel's
/// timestamps, on the monotonic clock).
public struct EdgeSpan: Sendable, Equatable {
    public let first: Duration
    public let last: Duration

    public init(first: Duration, last: Duration) {
        self.first = first
        self.last = last
    }
}

/// The scan loop's clock and waits: real time in production, virtual time in tests.
public protocol ScanTiming: AnyObject {
    /// The monotonic clock (the clock of the kernel's edge-event timestamps).
    var now: Duration { get }
    /// Returns at `deadline` or a little later (at once when it has passed).
    func wait(until deadline: Duration)
}
