import Dispatch
import KeypadHAL
import Synchronization
import Testing

/// An idle 1x1 keypad on real threads: no key is ever down, so the scan thread waits for an
/// edge until woken. While `ignoresWake` is set, the thread's next wait is a call that never
/// returns (a thread stuck in a GPIO call): wakes do nothing until it is cleared. Setting it
/// wakes the thread once more so that its next wait is that call, whatever wake was pending
/// (a probe's wake taken after the probe saw a round would otherwise end one more wait).
final class IdleBackend: MatrixBackend, @unchecked Sendable {
    // @unchecked: the semaphores and the Atomics are thread-safe; nothing else changes.
    private let woken = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)
    private let wakeIgnored = Atomic<Bool>(false)
    private let inStuckCall = Atomic<Bool>(false)
    let waits = Atomic<Int>(0)

    var ignoresWake: Bool {
        get { wakeIgnored.load(ordering: .relaxed) }
        set {
            wakeIgnored.store(newValue, ordering: .relaxed)
            if newValue { woken.signal() } else { released.signal() }
        }
    }

    /// Whether the scan thread is in the call that never returns.
    var isStuck: Bool { inStuckCall.load(ordering: .relaxed) }

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
        if ignoresWake {
            inStuckCall.store(true, ordering: .relaxed)
            released.wait()
            inStuckCall.store(false, ordering: .relaxed)
            return false
        }
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
        while !backend.isStuck { try? await Task.sleep(for: .milliseconds(5)) }
        let started = ContinuousClock.now
        #expect(await thread.probe(within: .milliseconds(300)) == false)
        #expect(ContinuousClock.now - started >= .milliseconds(300))
        backend.ignoresWake = false
        #expect(thread.stopAndCollect() != nil)
        #expect(await thread.probe(within: .milliseconds(300)) == false, "a thread that has ended proves nothing")
    }
}
