import Dispatch
import KeypadHAL
import Synchronization
import Testing

/// An idle 1x1 keypad on real threads: no key is ever down, so the scan thread waits for an
/// edge until woken. With `ignoresWake` a wake does nothing: a thread stuck in a GPIO call.
final class IdleBackend: MatrixBackend, @unchecked Sendable {
    // @unchecked: the semaphore and the Atomic are thread-safe; nothing else changes.
    private let woken = DispatchSemaphore(value: 0)
    private let wakeIgnored = Atomic<Bool>(false)
    let waits = Atomic<Int>(0)

    var ignoresWake: Bool {
        get { wakeIgnored.load(ordering: .relaxed) }
        set { wakeIgnored.store(newValue, ordering: .relaxed) }
    }

    var rowCount: Int { 1 }
    var columnCount: Int { 1 }
    var valueCalls: Int { 0 }
    func drive(row: Int) throws {}
    func driveAllRows() throws {}
    func releaseAllRows() throws {}
    func readColumns() throws -> UInt8 { 0 }
    func drainEdges() throws -> EdgeSpan? { nil }

    func waitForEdge(timeout: Duration?) throws -> Bool {
        waits.add(1, ordering: .relaxed)
        if let timeout {
            return woken.wait(timeout: .now() + .milliseconds(timeout.wholeMilliseconds)) == .success
        }
        woken.wait()
        return true
    }

    func wake() {
        guard !ignoresWake else { return }
        woken.signal()
    }
}

@Suite("Scan thread probe (the watchdog's proof that the keypad is read)")
struct ScanThreadProbeTests {
    static func thread(_ backend: IdleBackend) -> ScanThread {
        let layout = MatrixLayout(rows: 1, columns: 1, labels: Array("1"))
        let loop = MatrixScanLoop(
            scanner: MatrixScanner(layout: layout, settings: ScannerSettings()), backend: backend,
            settle: .microseconds(50), interval: .milliseconds(1), timing: SystemScanTiming())
        return ScanThread(loop: loop)
    }

    @Test(.timeLimit(.minutes(1))) func anIdleScanThreadGoesRoundWhenProbed() async {
        let backend = IdleBackend()
        let thread = Self.thread(backend)
        thread.start(deliver: { _ in }, failed: { _ in })
        for _ in 0..<3 {
            #expect(await thread.probe(within: .seconds(5)))
        }
        #expect(backend.waits.load(ordering: .relaxed) >= 3, "each probe ended an idle wait")
        #expect(thread.stopAndCollect() != nil)
    }

    @Test(.timeLimit(.minutes(1))) func aThreadStuckInACallOrEndedFailsTheProbe() async {
        let backend = IdleBackend()
        let thread = Self.thread(backend)
        thread.start(deliver: { _ in }, failed: { _ in })
        #expect(await thread.probe(within: .seconds(5)))
        backend.ignoresWake = true
        let started = ContinuousClock.now
        #expect(await thread.probe(within: .milliseconds(300)) == false)
        #expect(ContinuousClock.now - started >= .milliseconds(300))
        backend.ignoresWake = false
        #expect(thread.stopAndCollect() != nil)
        #expect(await thread.probe(within: .milliseconds(300)) == false, "a thread that has ended proves nothing")
    }
}
