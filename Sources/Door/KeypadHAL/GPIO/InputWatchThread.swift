import Dispatch
import Foundation
import KioskPadCore
import Synchronization

#if canImport(CKeypadGPIO)
    import CKeypadGPIO
#endif

/// Watches one ``DigitalInput`` on a dedicated, named thread (`kp-input`): blocked in
/// `poll(2)` while nothing changes, woken by the kernel's edge events, debounced by time
/// (``InputDebouncer``). Reports the level at start, then every debounced change.
public final class InputWatchThread: Sendable {
    public static let threadName = "kp-input"

    private let input: any DigitalInput
    private let debounce: Duration
    private let stopping = Mutex(false)
    private let finished = DispatchSemaphore(value: 0)

    public init(input: any DigitalInput, debounce: Duration) {
        self.input = input
        self.debounce = debounce
    }

    /// Starts watching: `changed(level, initial)` gets the level at start (`initial` true),
    /// then each debounced change; `failed` once if the line fails (the thread then ends).
    public func start(changed: @escaping @Sendable (Bool, Bool) -> Void, failed: @escaping @Sendable (any Error) -> Void) {
        let thread = Thread { [self] in
            #if canImport(CKeypadGPIO)
                kp_set_thread_name(InputWatchThread.threadName)
            #endif
            defer { finished.signal() }
            do {
                try watch(changed)
            } catch {
                if !isStopping { failed(error) }
            }
        }
        thread.name = InputWatchThread.threadName
        thread.start()
    }

    private func watch(_ changed: @Sendable (Bool, Bool) -> Void) throws {
        let clock = ContinuousClock()
        let origin = clock.now
        var debouncer = InputDebouncer(initial: try input.isActive(), debounce: debounce, at: .zero)
        changed(debouncer.stable, true)
        var due: Duration?
        while !isStopping {
            try input.waitForChange(timeout: due.map { max($0 - origin.duration(to: clock.now), .zero) })
            guard !isStopping else { return }
            let now = origin.duration(to: clock.now)
            due = debouncer.observe(try input.isActive(), at: now)
            if let level = debouncer.settle(at: now) {
                due = nil
                changed(level, false)
            }
        }
    }

    private var isStopping: Bool { stopping.withLock { $0 } }

    /// Stops the thread and waits up to `timeout` for it to end; false if it did not.
    @discardableResult
    public func stop(timeout: Duration = .seconds(2)) -> Bool {
        stopping.withLock { $0 = true }
        input.wake()
        return finished.wait(timeout: .now() + .milliseconds(timeout.wholeMilliseconds)) == .success
    }
}
