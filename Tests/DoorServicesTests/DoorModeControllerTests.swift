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

/// Keeps the door-mode events a bus delivers.
final class ModeEventRecorder: TerminalEventSink {
    private let seen = Mutex<[DoorModeChange]>([])
    var changes: [DoorModeChange] { seen.withLock { $0 } }

    func handle(_ event: TerminalEvent) async {
        if case .doorMode(let change) = event { seen.withLock { $0.append(change) } }
    }
}

/// The door's mode from the site's replica and the fire-alarm input: the relay held for a
/// release whatever else happens, the display told, each change published once.
@Suite("Door mode")
struct DoorModeControllerTests {
    let logger = Logger(label: "test")

    /// The modes the display was told, in order.
    final class Shown: Sendable {
        let modes = Mutex<[DoorMode]>([])
    }

    func parts() throws -> (DoorModeController, RecordingOutput, DoorRelay, ManualClock, ModeEventRecorder, Shown) {
        let output = RecordingOutput()
        let time = ManualClock()
        let relay = try DoorRelay(output: output, defaultUnlock: .seconds(5), maxUnlock: .seconds(30), logger: logger, clock: TerminalClock(time))
        let bus = TerminalEventBus()
        let recorder = ModeEventRecorder()
        bus.start(sinks: [recorder])
        return (DoorModeController(relay: relay, bus: bus, logger: logger), output, relay, time, recorder, Shown())
    }

    @Test func aFireAlarmHoldsTheRelayPastAnyUnlockTimeAndLetsGoWhenItEnds() async throws {
        let (modes, output, relay, time, recorder, shown) = try parts()
        await modes.onShow { mode in shown.modes.withLock { $0.append(mode) } }
        await modes.fireAlarm(active: true)
        #expect(output.isOn && relay.isEnergised)
        // A grant during the release changes nothing, and its time passing does not drop the hold.
        await relay.handle(decided(.granted(unlockSeconds: 2)))
        time.advance(by: .seconds(60))
        try await Task.sleep(for: .milliseconds(50))
        await relay.lock()  // re-lock on open does not drop a held relay either
        #expect(output.isOn)
        await modes.fireAlarm(active: false)
        #expect(!output.isOn)
        #expect(shown.modes.withLock { $0 } == [.normal, .release, .normal])
        #expect(await eventually { recorder.changes.count == 2 })
        #expect(recorder.changes == [DoorModeChange(mode: .release, source: "fire_alarm"), DoorModeChange(mode: .normal, source: "normal")])
    }

    @Test func theFireAlarmWinsOverTheSitesLockdownAndTheLockdownComesBackAfterIt() async throws {
        let (modes, output, _, _, recorder, _) = try parts()
        let lockdown = DoorModes.Setting(mode: .lockdown, setBy: "ops", setAt: Date(timeIntervalSince1970: 0))
        await modes.follow(site: lockdown, unlock: nil)
        #expect(!output.everOn)
        await modes.fireAlarm(active: true)
        #expect(output.isOn)
        await modes.fireAlarm(active: false)
        #expect(!output.isOn)
        // The same site mode again (an unchanged sync) is not a change.
        await modes.follow(site: lockdown, unlock: nil)
        await modes.follow(site: nil, unlock: nil)
        #expect(await eventually { recorder.changes.count == 4 })
        #expect(
            recorder.changes.map { "\($0.mode.rawValue):\($0.source):\($0.setBy ?? "-")" } == [
                "lockdown:site:ops", "release:fire_alarm:-", "lockdown:site:ops", "normal:normal:-",
            ])
    }

    @Test func theSitesReleaseHoldsTheRelayAndAShutdownStillDropsIt() async throws {
        let (modes, output, relay, _, _, _) = try parts()
        await modes.follow(site: DoorModes.Setting(mode: .release, setBy: "ops", setAt: Date(timeIntervalSince1970: 0)), unlock: nil)
        #expect(output.isOn)
        relay.shutdown()
        #expect(!output.isOn)
        await modes.follow(site: nil, unlock: nil)
        await modes.fireAlarm(active: true)
        #expect(!output.isOn)
    }
}
