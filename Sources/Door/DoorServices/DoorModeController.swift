import DoorController
import KioskPadAccess
import Logging

/// The door's mode from what sets it: the site's (lockdown or release, from the door's
/// credential replica) and the fire-alarm input (`door.fire_release`). The fire alarm's
/// release wins over everything (people must get out); then the site's mode. On each change
/// the relay is held or let go, the display told, and a `door_mode` event published.
public actor DoorModeController {
    private var site: DoorModes.Setting?
    private var fireAlarm = false
    private var current = DoorModeChange(mode: .normal, source: "normal")
    private let relay: DoorRelay?
    private var show: @Sendable (DoorMode) async -> Void = { _ in }
    private let bus: TerminalEventBus
    private let logger: Logger

    public init(relay: DoorRelay?, bus: TerminalEventBus, logger: Logger) {
        self.relay = relay
        self.bus = bus
        self.logger = logger
    }

    /// Tells `show` (the display) the mode now and at every change.
    public func onShow(_ show: @escaping @Sendable (DoorMode) async -> Void) async {
        self.show = show
        await show(current.mode)
    }

    public var mode: DoorModeChange { current }

    /// The site's mode for this door, as the newest replica carries it (nil: normal).
    public func siteMode(_ setting: DoorModes.Setting?) async {
        site = setting
        await settle()
    }

    /// The fire-alarm input's level: `active` means the alarm is on (release).
    public func fireAlarm(active: Bool) async {
        fireAlarm = active
        await settle()
    }

    private func settle() async {
        let next: DoorModeChange
        if fireAlarm {
            next = DoorModeChange(mode: .release, source: "fire_alarm")
        } else if let site, site.mode != .normal {
            next = DoorModeChange(mode: site.mode, source: "site", setBy: site.setBy)
        } else {
            next = DoorModeChange(mode: .normal, source: "normal")
        }
        guard next != current else { return }
        let wasReleased = current.mode == .release
        current = next
        logger.notice("door mode changed", metadata: ["mode": "\(next.mode.rawValue)", "source": "\(next.source)"])
        // The relay is held or let go here, before any suspension, so changes that race
        // reach it in the order this actor decided them.
        let releasing = next.mode == .release
        if releasing != wasReleased, let relay, relay.hold(releasing) {
            await relay.announce(releasing)
        }
        await show(next.mode)
        bus.publish(.doorMode(next))
    }
}
