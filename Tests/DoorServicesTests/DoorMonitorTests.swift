import DoorController
import DoorServices
import Foundation
import KeypadTestSupport
import KioskPadCore
import Logging
import Synchronization
import Testing

/// Collects what the monitor publishes.
final class PublishedEvents: Sendable {
    private let events = Mutex<[TerminalEvent]>([])
    func append(_ event: TerminalEvent) { events.withLock { $0.append(event) } }
    var inputs: [DoorInputEvent] {
        events.withLock { $0.compactMap { if case .doorInput(let input) = $0 { return input } else { return nil } } }
    }
}

@Suite("Door monitor: contact, exit button, tamper")
struct DoorMonitorTests {
    let logger = Logger(label: "test")

    func make(relock: Bool = true) throws -> (DoorMonitor, DoorRelay, RecordingOutput, ManualClock, PublishedEvents) {
        let output = RecordingOutput()
        let time = ManualClock()
        let published = PublishedEvents()
        let clock = TerminalClock(time)
        let relay = try DoorRelay(output: output, defaultUnlock: .seconds(5), maxUnlock: .seconds(30), logger: logger, clock: clock)
        let monitor = DoorMonitor(
            relay: relay,
            settings: DoorMonitor.Settings(heldOpen: .seconds(30), openGrace: .seconds(3), relockOnOpen: relock, exitUnlock: .seconds(5)),
            clock: clock, logger: logger, publish: { published.append($0) })
        return (monitor, relay, output, time, published)
    }

    @Test func anOpeningWithoutAGrantIsForcedAndTheStateAtStartIsNoEvent() async throws {
        let (monitor, _, output, _, published) = try make()
        await monitor.contact(open: false, initial: true)
        #expect(published.inputs.isEmpty)
        await monitor.contact(open: true, initial: false)
        await monitor.contact(open: false, initial: false)
        #expect(published.inputs == [.opened, .forcedOpen, .closed])
        #expect(!output.everOn)
    }

    @Test func anOpeningDuringAGrantIsNotForcedAndDropsTheRelay() async throws {
        let (monitor, relay, output, _, published) = try make()
        await monitor.contact(open: false, initial: true)
        await relay.handle(decided(.granted()))
        #expect(output.isOn)
        await monitor.contact(open: true, initial: false)
        #expect(published.inputs == [.opened])
        #expect(!output.isOn)  // re-locked on open
        await monitor.contact(open: false, initial: false)
        // Just after the relay dropped, a second opening within the grace time is not forced.
        await monitor.contact(open: true, initial: false)
        #expect(published.inputs == [.opened, .closed, .opened])
    }

    @Test func withoutRelockTheRelayStaysOnForItsTime() async throws {
        let (monitor, relay, output, _, _) = try make(relock: false)
        await monitor.contact(open: false, initial: true)
        await relay.handle(decided(.granted()))
        await monitor.contact(open: true, initial: false)
        #expect(output.isOn)
    }

    @Test func anOpeningAfterTheGraceTimeIsForced() async throws {
        let (monitor, relay, output, time, published) = try make()
        await monitor.contact(open: false, initial: true)
        await relay.handle(decided(.granted()))
        #expect(await eventually { time.sleepers == 1 })
        time.advance(by: .seconds(5))
        #expect(await eventually { !output.isOn })
        time.advance(by: .milliseconds(2_999))
        await monitor.contact(open: true, initial: false)
        await monitor.contact(open: false, initial: false)
        time.advance(by: .milliseconds(1))
        await monitor.contact(open: true, initial: false)
        #expect(published.inputs == [.opened, .closed, .opened, .forcedOpen])
    }

    @Test func heldOpenFiresOnceAfterTheTimeAndNotWhenClosedInTime() async throws {
        let (monitor, relay, _, time, published) = try make()
        await monitor.contact(open: false, initial: true)
        await relay.handle(decided(.granted()))
        await monitor.contact(open: true, initial: false)
        #expect(await eventually { time.sleepers == 2 })  // the held-open timer and the relay's (a no-op now)
        time.advance(by: .seconds(29))
        try await Task.sleep(for: .milliseconds(50))
        #expect(!published.inputs.contains(.heldOpen(seconds: 30)))
        time.advance(by: .seconds(1))
        #expect(await eventually { published.inputs.contains(.heldOpen(seconds: 30)) })
        time.advance(by: .seconds(120))
        try await Task.sleep(for: .milliseconds(50))
        #expect(published.inputs.filter { $0 == .heldOpen(seconds: 30) }.count == 1)
        await monitor.contact(open: false, initial: false)
        await monitor.contact(open: true, initial: false)  // forced: the relay is long off
        await monitor.contact(open: false, initial: false)
        time.advance(by: .seconds(60))
        try await Task.sleep(for: .milliseconds(50))
        #expect(published.inputs.filter { $0 == .heldOpen(seconds: 30) }.count == 1)
    }

    @Test func theExitButtonUnlocksOncePerPressAndAnOpeningAfterItIsNotForced() async throws {
        let (monitor, _, output, _, published) = try make()
        await monitor.contact(open: false, initial: true)
        await monitor.exitButton(pressed: false, initial: true)
        await monitor.exitButton(pressed: true, initial: false)
        #expect(output.isOn)
        await monitor.exitButton(pressed: false, initial: false)
        await monitor.contact(open: true, initial: false)
        #expect(published.inputs == [.exitRequest, .opened])
        #expect(output.changes.filter(\.on).count == 1)
    }

    @Test func aButtonHeldAtStartIsNoRequest() async throws {
        let (monitor, _, output, _, published) = try make()
        await monitor.exitButton(pressed: true, initial: true)
        #expect(published.inputs.isEmpty && !output.everOn)
    }

    @Test func tamperIsReportedAtStartAndOnEachChangeAndTellsTheController() async throws {
        let (monitor, _, output, _, published) = try make()
        let told = Mutex<[Bool]>([])
        await monitor.onTamperChange { active in told.withLock { $0.append(active) } }
        await monitor.tamper(active: true, initial: true)
        await monitor.tamper(active: true, initial: false)
        await monitor.tamper(active: false, initial: false)
        #expect(published.inputs == [.tamper(active: true), .tamper(active: false)])
        #expect(told.withLock { $0 } == [true, false])
        #expect(!output.everOn)
    }
}
