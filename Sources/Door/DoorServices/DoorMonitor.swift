import DoorController
import KioskPadCore
import Logging

/// What the door's inputs mean (pure of GPIO: the watcher threads report debounced levels).
/// Door contact: `door_opened`/`door_closed`; `forced_open` when the door opens with the
/// relay off and no unlock within the grace time; `held_open` once per opening after the
/// held-open time; the relay dropped as soon as the door opens after an unlock (re-lock on
/// open). Exit button: `exit_request` and an unlock, never an attempt. Tamper: `tamper` /
/// `tamper_cleared`, and the controller told so the display shows it.
public actor DoorMonitor {
    /// The door's timings and whether it re-locks on open.
    public struct Settings: Sendable {
        public var heldOpen: Duration
        public var openGrace: Duration
        public var relockOnOpen: Bool
        public var exitUnlock: Duration

        public init(heldOpen: Duration, openGrace: Duration, relockOnOpen: Bool, exitUnlock: Duration) {
            self.heldOpen = heldOpen
            self.openGrace = openGrace
            self.relockOnOpen = relockOnOpen
            self.exitUnlock = exitUnlock
        }
    }

    private let relay: DoorRelay?
    private let settings: Settings
    private let publish: @Sendable (TerminalEvent) -> Void
    private let clock: TerminalClock
    private let logger: Logger
    private var tamperChanged: @Sendable (Bool) async -> Void = { _ in }
    private var isOpen: Bool?
    private var opening = 0
    private var heldTimer: Task<Void, Never>?
    private var tampered = false

    public init(
        relay: DoorRelay?, settings: Settings, clock: TerminalClock = .continuous, logger: Logger,
        publish: @escaping @Sendable (TerminalEvent) -> Void
    ) {
        self.relay = relay
        self.settings = settings
        self.clock = clock
        self.logger = logger
        self.publish = publish
    }

    /// Who is told when the tamper state changes (the controller, for the display).
    public func onTamperChange(_ handler: @escaping @Sendable (Bool) async -> Void) {
        tamperChanged = handler
    }

    /// The contact's debounced state; the first report is the state at start (no event).
    public func contact(open: Bool, initial: Bool) async {
        defer { isOpen = open }
        if initial {
            if open { startHeldTimer() }  // open at start: held open counts from now
            return
        }
        guard open != isOpen else { return }
        if open {
            publish(.doorInput(.opened))
            if relay?.unlockedRecently(within: settings.openGrace) != true {
                logger.critical("door forced open: opened with no grant or exit request")
                publish(.doorInput(.forcedOpen))
            } else if settings.relockOnOpen, relay?.isEnergised == true {
                await relay?.lock()
            }
            startHeldTimer()
        } else {
            heldTimer?.cancel()
            heldTimer = nil
            publish(.doorInput(.closed))
        }
    }

    /// The exit button's debounced state: a press unlocks the door.
    public func exitButton(pressed: Bool, initial: Bool) async {
        guard pressed, !initial else { return }
        logger.notice("exit requested", metadata: ["seconds": "\(settings.exitUnlock.wholeSeconds)"])
        publish(.doorInput(.exitRequest))
        await relay?.unlock(for: settings.exitUnlock)
    }

    /// The tamper switch's debounced state; a tamper present at start is reported too.
    public func tamper(active: Bool, initial: Bool) async {
        guard active != tampered else { return }
        tampered = active
        if active {
            logger.critical("tamper switch tripped")
        } else {
            logger.notice("tamper switch restored")
        }
        publish(.doorInput(.tamper(active: active)))
        await tamperChanged(active)
    }

    private func startHeldTimer() {
        opening += 1
        let this = opening
        let clock = self.clock
        let limit = settings.heldOpen
        heldTimer?.cancel()
        heldTimer = Task {
            try? await clock.sleep(for: limit)
            guard !Task.isCancelled else { return }
            self.heldOpenElapsed(opening: this)
        }
    }

    private func heldOpenElapsed(opening this: Int) {
        guard this == opening, isOpen == true else { return }
        logger.warning("door held open", metadata: ["seconds": "\(settings.heldOpen.wholeSeconds)"])
        publish(.doorInput(.heldOpen(seconds: settings.heldOpen.wholeSeconds)))
    }

    /// Stops the held-open timer (shutdown).
    public func stop() {
        heldTimer?.cancel()
        heldTimer = nil
    }
}
