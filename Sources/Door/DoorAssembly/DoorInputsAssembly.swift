import DoorConfig
import DoorController
import DoorServices
import KeypadHAL
import KioskPadConfig
import KioskPadCore
import Logging

/// The door contact, exit button, fire release and tamper inputs (`door.contact`, ...): each
/// line opened now, so a wrong chip or line stops start-up naming its key, and what each
/// debounced level means.
enum DoorInputsAssembly {
    /// The monitor and the service that watches the lines (nil without any input).
    static func inputs(
        _ daemon: DaemonConfiguration, relay: DoorRelay?, modes: DoorModeController, bus: TerminalEventBus, logger: Logger
    ) throws -> (monitor: DoorMonitor, service: DoorInputsService)? {
        guard !daemon.inputLines.isEmpty else { return nil }
        let door = daemon.door
        let monitor = DoorMonitor(
            relay: relay,
            settings: DoorMonitor.Settings(
                heldOpen: door?.heldOpen ?? .seconds(30), openGrace: door?.openGrace ?? .seconds(3),
                relockOnOpen: door?.relockOnOpen ?? true, exitUnlock: door?.unlock ?? .seconds(5)),
            logger: logger, publish: { bus.publish($0) })
        let watched = try daemon.inputLines.map { role, config in
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
            return DoorInputsService.WatchedInput(key: role.rawValue, thread: InputWatchThread(input: line, debounce: config.debounce), report: report)
        }
        return (monitor, DoorInputsService(watching: watched, monitor: monitor, logger: logger))
    }
}
