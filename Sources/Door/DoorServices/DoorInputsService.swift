import KeypadHAL
import KioskPadCore
import KioskPadThreads
import Logging
import ServiceLifecycle

/// The door contact, exit button, fire-release and tamper inputs: each line opened at start
/// (so a wrong chip or line stops start-up naming its key), each watched by its own
/// `kp-input` thread while the service group runs, each debounced level handed to the
/// ``DoorMonitor`` (the fire release to the ``DoorModeController``).
public final class DoorInputsService: Service {
    /// One input: its config key, the thread that watches its line, and what a debounced
    /// level means (`active`, `initial`: the level read at start).
    public struct WatchedInput: Sendable {
        let key: String
        let thread: InputWatchThread
        let report: @Sendable (_ active: Bool, _ initial: Bool) async -> Void

        public init(key: String, thread: InputWatchThread, report: @escaping @Sendable (_ active: Bool, _ initial: Bool) async -> Void) {
            self.key = key
            self.thread = thread
            self.report = report
        }
    }

    private let watchers: [WatchedInput]
    private let monitor: DoorMonitor
    private let logger: Logger

    /// The inputs' lines are open already (the composition root opens them, so a wrong chip
    /// or line stops start-up naming its key); their threads start when the service runs.
    public init(watching watchers: [WatchedInput], monitor: DoorMonitor, logger: Logger) {
        self.watchers = watchers
        self.monitor = monitor
        self.logger = logger
    }

    public func run() async throws {
        let (changes, continuation) = AsyncStream.makeStream(of: (Int, Bool, Bool).self)
        for (index, watcher) in watchers.enumerated() {
            let key = watcher.key
            let logger = self.logger
            watcher.thread.start(
                changed: { active, initial in continuation.yield((index, active, initial)) },
                failed: { error in logger.error("door input failed; its events stop", metadata: ["key": "\(key)", "error": "\(error)"]) })
        }
        await withGracefulShutdownHandler {
            await cancelWhenGracefulShutdown {
                // One consumer, so the monitor sees each input's changes in the order they happened.
                for await (index, active, initial) in changes {
                    await self.watchers[index].report(active, initial)
                }
            }
        } onGracefulShutdown: {
            continuation.finish()
        }
        // Each stop waits (up to 2 s) for its thread to end: on the waits thread, not this task's.
        let threads = watchers.map(\.thread)
        _ = try? await WorkThreads.waits.run { for thread in threads { thread.stop() } }
        continuation.finish()
        await monitor.stop()
    }
}
