import Dispatch
import Foundation
import KioskPadCore
import Synchronization

#if canImport(CKeypadGPIO)
    import CKeypadGPIO
#endif

/// Runs a ``MatrixScanLoop`` on a dedicated, named thread (`kp-scan`) so that an idle
/// keypad is one thread blocked in `poll(2)`, visible and countable in `/proc`.
public final class ScanThread: @unchecked Sendable {
    // @unchecked: the loop (a class with scan state) is not Sendable; after start() it is
    // touched only by the scan thread. stop() sets a Mutex-guarded flag and calls the
    // backend's thread-safe wake(); the semaphore is the thread's join, not a lock.
    public static let threadName = "kp-scan"

    private let loop: MatrixScanLoop
    private let stopping = Mutex(false)
    /// Rounds of the scan loop so far (each scan or idle wait that ended), for ``probe(within:)``.
    private let rounds = Atomic<Int>(0)
    private let finished = DispatchSemaphore(value: 0)

    public init(loop: MatrixScanLoop) {
        self.loop = loop
    }

    /// Starts scanning; `started` runs once on the scan thread before its first scan (from
    /// then on no press is missed), `deliver` for every event, `failed` once if the backend
    /// fails (the thread then ends).
    public func start(
        started: @escaping @Sendable () -> Void = {},
        deliver: @escaping @Sendable (ScanEvent) -> Void, failed: @escaping @Sendable (any Error) -> Void
    ) {
        let thread = Thread { [self] in
            #if canImport(CKeypadGPIO)
                kp_set_thread_name(ScanThread.threadName)
            #endif
            defer { finished.signal() }
            started()
            do {
                try loop.run(
                    shouldStop: {
                        rounds.add(1, ordering: .relaxed)
                        return isStopping
                    }, deliver: deliver)
            } catch {
                failed(error)
            }
        }
        thread.name = ScanThread.threadName
        thread.start()
    }

    public func stop() {
        stopping.withLock { $0 = true }
        loop.backend.wake()
    }

    private var isStopping: Bool { stopping.withLock { $0 } }

    /// Wakes the scan thread (as ``stop()`` does, without stopping it) and answers whether it
    /// went round its loop within `limit`: false when it is stuck in a GPIO call or has ended.
    /// Waits by sleeping the task, never blocking a thread.
    public func probe(within limit: Duration) async -> Bool {
        let before = rounds.load(ordering: .relaxed)
        loop.backend.wake()
        let deadline = ContinuousClock.now + limit
        while rounds.load(ordering: .relaxed) == before {
            guard ContinuousClock.now < deadline, !Task.isCancelled else { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    /// Stops the thread and waits (up to `timeout`) until it has ended; then returns the
    /// scan statistics: scans, idle waits, the GPIO value calls of the costliest steady scan,
    /// and the rows read again because a column lingered from the row before.
    public func stopAndCollect(timeout: Duration = .seconds(2)) -> (scans: Int, idleWaits: Int, valueCallsPerScan: Int, rechecks: Int)? {
        stop()
        let milliseconds = timeout.wholeMilliseconds
        guard finished.wait(timeout: .now() + .milliseconds(milliseconds)) == .success else { return nil }
        return (loop.scans, loop.idleWaits, loop.maxValueCallsPerScan, loop.rechecks)
    }
}
