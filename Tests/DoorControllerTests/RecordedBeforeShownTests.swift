import DoorController
import KeypadDisplay
import KeypadHAL
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import Testing

/// A sink that says it is the durable record, as the journal does; held (its handler waits
/// until released) for every event, or with `onlyAttempts` for attempts only.
final class DurableGatedSink: TerminalEventSink {
    let inner: GatedSink
    private let passing = GatedSink()
    private let onlyAttempts: Bool
    var isDurableRecord: Bool { true }

    init(held: Bool, onlyAttempts: Bool = false) {
        inner = GatedSink(held: held)
        self.onlyAttempts = onlyAttempts
    }

    func handle(_ event: TerminalEvent) async {
        if onlyAttempts, case .attemptDecided = event {
            await inner.handle(event)
        } else if onlyAttempts {
            await passing.handle(event)
        } else {
            await inner.handle(event)
        }
    }
}

/// The journal's record of an attempt comes before its result on the display (issue 47: a
/// power cut never loses an attempt whose result was shown).
@Suite("Attempts recorded before their result is shown")
struct RecordedBeforeShownTests {
    @Test(.timeLimit(.minutes(1))) func publishRecordedWaitsForTheDurableRecordAndNotForOtherSinks() async {
        let journal = DurableGatedSink(held: true)
        let relay = GatedSink(held: true)
        let bus = TerminalEventBus()
        bus.start(sinks: [journal, relay])
        let waiting = Task { await bus.publishRecorded(.started, within: .seconds(30)) }
        #expect(await eventually { journal.inner.held == 1 })
        try? await Task.sleep(for: .milliseconds(50))
        #expect(journal.inner.events.isEmpty, "not handled yet, so the publisher still waits")
        journal.inner.release()
        #expect(await waiting.value == true, "answered once the journal handled it, though the relay is still held")
        #expect(relay.events.isEmpty)
        relay.release()
        await bus.finish()
    }

    @Test(.timeLimit(.minutes(1))) func aStalledRecordAnswersFalseAfterTheLimitAndStillGetsTheEvent() async {
        let journal = DurableGatedSink(held: true)
        let bus = TerminalEventBus()
        bus.start(sinks: [journal])
        let started = ContinuousClock.now
        let recorded = await bus.publishRecorded(.stopping, within: .milliseconds(200))
        #expect(recorded == false)
        #expect(ContinuousClock.now - started >= .milliseconds(200))
        journal.inner.release()
        await bus.finish()
        #expect(journal.inner.events == [.stopping])
    }

    @Test func withNoDurableRecordOrAFinishedBusItAnswersAtOnce() async {
        let bus = TerminalEventBus()
        bus.start(sinks: [GatedSink(held: true)])
        #expect(await bus.publishRecorded(.keyPressed, within: .seconds(30)) == true)
        let finished = TerminalEventBus()
        finished.start(sinks: [DurableGatedSink(held: false)])
        await finished.finish()
        #expect(await finished.publishRecorded(.keyPressed, within: .seconds(30)) == false)
    }

    @Test(.timeLimit(.minutes(1))) func theResultIsShownOnlyAfterTheJournalHandledTheAttempt() async {
        let journal = DurableGatedSink(held: true, onlyAttempts: true)
        let bus = TerminalEventBus()
        bus.start(sinks: [journal])
        let display = RecordingDisplay(geometry: .lcd1602)
        let controller = demoController(display: display, bus: bus, recordWait: .seconds(30))
        let run = Task { await controller.run() }
        let granted = { display.frames.contains { $0.rows[0].contains("Access granted") } }
        #expect(await eventually { journal.inner.held == 1 })  // the attempt is in the journal's handler
        try? await Task.sleep(for: .milliseconds(100))
        #expect(!granted(), "the result waits for the journal")
        #expect(display.frames.last?.rows.joined().contains("Verifying") == true)
        journal.inner.release()
        #expect(await run.value == .inputEnded)
        #expect(granted())
        #expect(journal.inner.events.contains { if case .attemptDecided(_, _, .granted, _, _, _) = $0 { true } else { false } })
        await bus.finish()
    }

    @Test(.timeLimit(.minutes(1))) func aStuckJournalDelaysTheResultByTheWaitOnly() async {
        let journal = DurableGatedSink(held: true)
        let bus = TerminalEventBus()
        bus.start(sinks: [journal])
        let display = RecordingDisplay(geometry: .lcd1602)
        let controller = demoController(display: display, bus: bus, recordWait: .milliseconds(300))
        #expect(await controller.run() == .inputEnded)
        #expect(display.frames.contains { $0.rows[0].contains("Access granted") })
        #expect(journal.inner.events.isEmpty, "the journal never handled anything, yet the door went on")
        journal.inner.release()
        await bus.finish()
    }
}
