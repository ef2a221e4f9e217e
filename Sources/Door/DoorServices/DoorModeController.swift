import DoorController
import Foundation
import KioskPadAccess
import Logging

/// The door's mode from what sets it: the site's (lockdown or release, from the door's
/// credential replica), the fire-alarm input (`door.fire_release`), and the door's unlock
/// schedule (opening hours; with first-in, from the first staff entry of the day). The fire
/// alarm's release wins over everything (people must get out); then the site's mode; then
/// the unlock schedule. On each change the relay is held or let go, the display told, and a
/// `door_mode` event published. As a bus sink it sees grants, for first-in.
public actor DoorModeController: TerminalEventSink {
    private var site: DoorModes.Setting?
    private var fireAlarm = false
    private var unlock: DoorUnlockPlan?
    /// The site's local day on which a staff user last entered (first-in).
    private var staffDay: Int64?
    /// Now, by a clock the door trusts; nil when it trusts none (no unlock schedule then).
    private let clock: @Sendable () -> Date?
    private var current = DoorModeChange(mode: .normal, source: "normal")
    private let relay: DoorRelay?
    private var show: @Sendable (DoorMode) async -> Void = { _ in }
    private let bus: TerminalEventBus
    private let logger: Logger

    public init(relay: DoorRelay?, bus: TerminalEventBus, logger: Logger, clock: @escaping @Sendable () -> Date? = { nil }) {
        self.clock = clock
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

    /// What the newest replica says: the site's mode for this door and its unlock schedule.
    public func follow(site setting: DoorModes.Setting?, unlock plan: DoorUnlockPlan?) async {
        site = setting
        unlock = plan
        await settle()
    }

    /// Looks at the clock again (the unlock schedule's windows open and close with it).
    public func tick() async {
        await settle()
    }

    /// A grant of a staff user starts a first-in day (one before opening time counts: the
    /// door unlocks when the schedule's window opens).
    public func handle(_ event: TerminalEvent) async {
        guard case .attemptDecided(_, _, .granted(_, _, let user?, _), _, _, _) = event, let plan = unlock, plan.firstIn,
            plan.staff.contains(user), let now = clock()
        else { return }
        staffDay = plan.day(of: now)
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
        } else if let plan = unlock, let now = clock(), plan.isOpen(at: now), !plan.firstIn || staffDay == plan.day(of: now) {
            next = DoorModeChange(mode: .release, source: "schedule")
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
