import DoorController
import KeypadDisplay
import KeypadHAL
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import Synchronization
import Testing

/// A sink that records what it handles and can be held (its handler waits) until released.
final class GatedSink: TerminalEventSink {
    private let state = Mutex<(events: [TerminalEvent], held: Bool, waiting: [CheckedContinuation<Void, Never>])>(([], false, []))

    init(held: Bool = false) {
        state.withLock { $0.held = held }
    }

    func handle(_ event: TerminalEvent) async {
        await withCheckedContinuation { continuation in
            let go: Bool = state.withLock { state in
                guard state.held else { return true }
                state.waiting.append(continuation)
                return false
            }
            if go { continuation.resume() }
        }
        state.withLock { $0.events.append(event) }
    }

    func release() {
        let waiting = state.withLock { state in
            state.held = false
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    var events: [TerminalEvent] { state.withLock { $0.events } }
    /// Handlers waiting for ``release()``.
    var held: Int { state.withLock { $0.waiting.count } }
}

/// A controller on a 16x2 display whose one user, `demo`, has PIN 1234, typed by a script.
func demoController(display: RecordingDisplay, bus: TerminalEventBus, recordWait: Duration = KioskController.defaultRecordWait) -> KioskController {
    let hash = try! PINHash.make(pin: SecretDigits(ascii: "1234")!, iterations: 1_000)
    return KioskController(
        entry: EntryOptions(), composer: FrameComposer(geometry: .lcd1602), display: display,
        verifier: LocalVerifier(users: UsersFile(users: [UserRecord(name: "demo", pinHash: hash)])),
        source: ScriptedKeySource(text: "1234"), terminalID: "test", bus: bus, recordWait: recordWait)
}

/// Polls `condition` every millisecond for up to 5 s.
func eventually(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<5_000 {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return condition()
}

/// A second sink type, so the bus names the two lanes apart.
final class OtherSink: TerminalEventSink {
    let inner = GatedSink()
    func handle(_ event: TerminalEvent) async { await inner.handle(event) }
}

@Suite("Terminal event bus")
struct TerminalEventBusTests {
    @Test func aHeldSinkDelaysNeitherThePublisherNorAnotherSink() async {
        let slow = GatedSink(held: true)
        let fast = OtherSink()
        let bus = TerminalEventBus()
        bus.start(sinks: [slow, fast])
        for _ in 0..<5 { bus.publish(.keyPressed) }  // returns although `slow` handles nothing
        bus.publish(.displayError)
        #expect(await eventually { fast.inner.events.count == 6 })
        #expect(fast.inner.events == Array(repeating: .keyPressed, count: 5) + [.displayError])
        #expect(slow.events.isEmpty)
        slow.release()
        await bus.finish()
        #expect(slow.events == fast.inner.events, "each sink gets every event, in order")
    }

    @Test func aFullQueueDropsCountsAndThenTellsEverySink() async {
        let slow = GatedSink(held: true)
        let fast = OtherSink()
        let bus = TerminalEventBus(capacity: 4)
        bus.start(sinks: [slow, fast])
        bus.publish(.keyPressed)
        #expect(await eventually { slow.held == 1 })  // the first event is in its handler
        for sent in 2...10 {  // one at a time, so only the held sink falls behind
            bus.publish(.keyPressed)
            #expect(await eventually { fast.inner.events.count == sent })
        }
        // 4 more wait in the held sink's queue; the other 5 are dropped for it alone.
        #expect(bus.dropped == ["GatedSink": 5])
        slow.release()
        #expect(await eventually { slow.events.count == 5 })
        bus.publish(.displayError)
        await bus.finish()
        let report = TerminalEvent.eventsDropped(sink: "GatedSink", count: 5)
        #expect(fast.inner.events.suffix(2) == [.displayError, report])
        #expect(slow.events.count == 7 && slow.events.last == report)
    }

    @Test func finishDeliversEverythingQueuedThenNothingMore() async {
        let sink = GatedSink()
        let bus = TerminalEventBus()
        bus.start(sinks: [sink])
        bus.publish(.started)
        bus.publish(.keyPressed)
        bus.publish(.stopping)
        await bus.finish()
        bus.publish(.keyPressed)
        #expect(sink.events == [.started, .keyPressed, .stopping])
    }

    /// Before the bus, every sink was awaited before the model saw a key: one stuck sink
    /// stopped the keypad. Now the entry runs to its result while the sink is held.
    @Test(.timeLimit(.minutes(1))) func theModelGetsEveryKeyWhileASinkIsStuck() async {
        let stuck = GatedSink(held: true)
        let bus = TerminalEventBus()
        bus.start(sinks: [stuck])
        let display = RecordingDisplay(geometry: .lcd1602)
        let controller = demoController(display: display, bus: bus)
        let ending = await controller.run()
        #expect(ending == .inputEnded)
        #expect(display.frames.last?.rows[0].contains("Access granted") == true)
        #expect(stuck.events.isEmpty)
        stuck.release()
        await bus.finish()
        #expect(stuck.events.filter { $0 == .keyPressed }.count == 4)
        #expect(stuck.events.contains { if case .attemptDecided(_, _, .granted, _, _, _) = $0 { return true } else { return false } })
    }
}
