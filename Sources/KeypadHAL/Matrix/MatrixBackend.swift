/// The three things a matrix backend does, and nothing else (debounce and ghost logic
/// live in ``MatrixScanner``): drive one row or all rows active, read all columns at once,
/// and wait for a column edge. Implementations: libgpiod (real chips), mock (tests).
public protocol MatrixBackend: AnyObject {
    var rowCount: Int { get }
    var columnCount: Int { get }
    /// Makes only `row` active; every other row is released (never driven to the
    /// opposite level), in one bulk call.
    func drive(row: Int) throws
    /// Makes every row active (idle detection: any key pulls its column), in one bulk call.
    func driveAllRows() throws
    /// Columns that read active, bit c for column c, in one bulk call.
    func readColumns() throws -> UInt8
    /// Discards edge events queued so far (scanning itself makes edges).
    func drainEdges() throws
    /// Blocks until a column edge, a ``wake()``, or `timeout` (nil: forever). True unless it timed out.
    func waitForEdge(timeout: Duration?) throws -> Bool
    /// Makes a blocked ``waitForEdge(timeout:)`` return (from another thread).
    func wake()
    /// GPIO value calls so far (bulk sets plus bulk reads), for the scan-cost check.
    var valueCalls: Int { get }
}

/// The scan loop's clock and sleep: real time in production, virtual time in tests.
public protocol ScanTiming: AnyObject {
    var now: Duration { get }
    func sleep(for duration: Duration)
}
