import DoorController
import DoorServices
import Foundation
import KeypadHAL
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import Logging
import Synchronization
import Testing

/// A door held unlocked in its opening hours, from the first staff entry of the day with
/// first-in; a lockdown wins over it and a holiday keeps it shut. The time is injected.
@Suite("Door unlock schedule and first person in")
struct DoorUnlockScheduleTests {
    /// A wall clock the test sets: Tuesday 2026-12-01 at `hour`:`minute` UTC, `day` days later.
    final class WallClock: Sendable {
        let now = Mutex(Date(timeIntervalSince1970: 0))
        func set(day: Int = 0, _ hour: Int, _ minute: Int = 0) {
            let seconds: Int = day * 86_400 + hour * 3600 + minute * 60
            now.withLock { $0 = Date(timeIntervalSince1970: 1_796_083_200 + TimeInterval(seconds)) }
        }
        var read: @Sendable () -> Date? { { [self] in now.withLock { $0 } } }
    }

    func plan(firstIn: Bool, holidays: [Holiday] = []) throws -> DoorUnlockPlan {
        try DoorUnlockPlan(
            schedule: WeeklySchedule(parsing: "mon-fri 08:00-18:00"), zone: TimeZone(identifier: "UTC")!,
            holidays: HolidayCalendar(holidays, schedules: [:]), firstIn: firstIn, staff: ["sam"])
    }

    func parts(_ clock: WallClock) throws -> (DoorModeController, RecordingOutput) {
        let output = RecordingOutput()
        let relay = try DoorRelay(
            output: output, defaultUnlock: .seconds(5), maxUnlock: .seconds(30), logger: Logger(label: "test"), clock: TerminalClock(ManualClock()))
        return (DoorModeController(relay: relay, bus: TerminalEventBus(), logger: Logger(label: "test"), clock: clock.read), output)
    }

    func grant(_ user: String) -> TerminalEvent {
        .attemptDecided(attemptID: "a", kind: .pin, outcome: .granted(user: user), latency: .milliseconds(5), lockedOut: false)
    }

    @Test func theDoorIsHeldInItsWindowsAndLetGoOutsideThem() async throws {
        let clock = WallClock()
        let (modes, output) = try parts(clock)
        clock.set(7, 59)
        await modes.follow(site: nil, unlock: try plan(firstIn: false))
        #expect(!output.everOn)
        clock.set(8, 0)
        await modes.tick()
        let held = await modes.mode
        #expect(output.isOn && held == DoorModeChange(mode: .release, source: "schedule"))
        clock.set(18, 0)
        await modes.tick()
        let after = await modes.mode
        #expect(!output.isOn && after.mode == .normal)
    }

    @Test func withFirstInOnlyAStaffEntryThatDayStartsIt() async throws {
        let clock = WallClock()
        let (modes, output) = try parts(clock)
        clock.set(7, 50)
        await modes.follow(site: nil, unlock: try plan(firstIn: true))
        await modes.handle(grant("sam"))  // early: counts for the day once the window opens
        #expect(!output.everOn)
        clock.set(8, 0)
        await modes.tick()
        #expect(output.isOn)
        clock.set(18, 0)
        await modes.tick()
        #expect(!output.isOn)
        // The next day: shut at opening time until staff come; another user's grant changes nothing.
        clock.set(day: 1, 8, 0)
        await modes.tick()
        await modes.handle(grant("visitor"))
        #expect(!output.isOn)
        clock.set(day: 1, 9, 30)
        await modes.handle(grant("sam"))
        let started = await modes.mode
        #expect(output.isOn && started.source == "schedule")
    }

    @Test func aLockdownWinsOverItAndAHolidayKeepsTheDoorShut() async throws {
        let clock = WallClock()
        let (modes, output) = try parts(clock)
        clock.set(9, 0)
        let lockdown = DoorModes.Setting(mode: .lockdown, setBy: "ops", setAt: Date(timeIntervalSince1970: 0))
        await modes.follow(site: lockdown, unlock: try plan(firstIn: false))
        let locked = await modes.mode
        #expect(!output.everOn && locked.mode == .lockdown)
        await modes.follow(site: nil, unlock: try plan(firstIn: false))
        #expect(output.isOn)
        await modes.follow(site: nil, unlock: try plan(firstIn: false, holidays: [try Holiday(day: "2026-12-01", words: [])]))
        #expect(!output.isOn)
    }

    @Test func withoutATrustedClockTheDoorIsNotHeld() async throws {
        let output = RecordingOutput()
        let relay = try DoorRelay(output: output, defaultUnlock: .seconds(5), maxUnlock: .seconds(30), logger: Logger(label: "test"))
        let blind = DoorModeController(relay: relay, bus: TerminalEventBus(), logger: Logger(label: "test"), clock: { nil })
        await blind.follow(site: nil, unlock: try plan(firstIn: false))
        await blind.tick()
        let mode = await blind.mode
        #expect(mode.mode == .normal && !output.everOn)
    }
}
