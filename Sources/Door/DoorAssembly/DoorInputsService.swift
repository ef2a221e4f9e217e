import DoorServices
import KeypadHAL
import KioskPadConfig
import KioskPadCore
import Logging
import ServiceLifecycle

/// The door contact, exit button, fire-release and tamper inputs: each line opened at start
/// (so a wrong chip or line stops start-up naming its key), each watched by its own
/// `kp-input` thread while the service group runs, each debounced level handed to the
/// ``DoorMonitor`` (the fire release to the ``DoorModeController``).
final class DoorInputsService: Service {
    private let watchers: [(key: String, thread: InputWatchThread, report: @Sendable (Bool, Bool) async -> Void)]
    private let monitor: DoorMonitor
    private let logger: Logger

    init(configuration: DaemonConfiguration, monitor: DoorMonitor, modes: DoorModeController, logger: Logger) throws {
        self.monitor = monitor
        self.logger = logger
        var watchers: [(key: String, thread: InputWatchThread, report: @Sendable (Bool, Bool) async -> Void)] = []
        for (role, config) in configuration.inputLines {
            let line = try GPIOInputLine(chip: config.chip, line: config.line, activeLow: config.activeLow, key: role.rawValue)
            let eventWhenActive = config.eventWhenActive
            let report: @Sendable (Bool, Bool) async -> Void
            switch role {
            case .contact:
                report = { active, initial in await monitor.contact(open: active == eventWhenActive, initial: initial) }
            case .exitButton:
                report = { active, initial in await monitor.exitButton(pressed: active, initial: initial) }
            case .fireRelease:
                report = { active, _ in await modes.fireAlarm(active: active == eventWhenActive) }
            case .tamper:
                report = { active, initial in await monitor.tamper(active: active == eventWhenActive, initial: initial) }
            }
            watchers.append((role.rawValue, InputWatchThread(input: line, debounce: config.debounce), report))
        }
        self.watchers = watchers
    }

    func run() async throws {
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
