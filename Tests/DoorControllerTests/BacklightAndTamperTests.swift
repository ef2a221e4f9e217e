import DoorController
import KeypadDisplay
import KeypadHAL
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import Synchronization
import Testing

/// A live key source the test types into, one key at a time.
final class HandKeySource: KeySource {
    var isScripted: Bool { false }
    private let sink = Mutex<(@Sendable (KeySourceEvent) -> Void)?>(nil)

    func start(deliver: @escaping @Sendable (KeySourceEvent) -> Void, finished: @escaping @Sendable ((any Error)?) -> Void) -> KeySourceRun {
        sink.withLock { $0 = deliver }
        return KeySourceRun(stop: {})
    }

    var isStarted: Bool { sink.withLock { $0 != nil } }

    func press(_ label: Character) {
        sink.withLock { $0 }?(.key(.label(label)))
    }
}

@Suite("Controller: backlight timeout and tamper", .serialized)
struct BacklightAndTamperTests {
    func terminal(backlight: Duration?, tamperStopsEntry: Bool = false)
        -> (KioskController, HandKeySource, RecordingDisplay, ManualClock)
    {
        let display = RecordingDisplay(geometry: .lcd1602)
        let keys = HandKeySource()
        let time = ManualClock()
        let controller = KioskController(
            entry: EntryOptions(), composer: FrameComposer(geometry: .lcd1602), display: display,
            verifier: LocalVerifier(users: KioskControllerTests.users), source: keys, terminalID: "t",
            clock: TerminalClock(time), tamperStopsEntry: tamperStopsEntry, backlightTimeout: backlight)
        return (controller, keys, display, time)
    }

    func settle() async { try? await Task.sleep(for: .milliseconds(100)) }

    @Test func theBacklightGoesDarkWhenIdleAndTheWakingKeyIsNotTyped() async throws {
        let (controller, keys, display, time) = terminal(backlight: .seconds(30))
        let run = Task { await controller.run() }
        defer { run.cancel() }
        #expect(await eventually { keys.isStarted && time.sleepers == 1 })
        #expect(display.frames.last?.backlight == true)
        time.advance(by: .seconds(30))
        #expect(await eventually { display.frames.last?.backlight == false })
        keys.press("1")
        #expect(await eventually { display.frames.last?.backlight == true })
        await settle()
        #expect(display.frames.last?.rows[1].contains("_ _ _ _") == true)  // not typed
        keys.press("1")
        #expect(await eventually { display.frames.last?.rows[1].contains("* _ _ _") == true })
    }

    @Test func tamperShowsItsTextAndWithStopEntryIgnoresKeys() async throws {
        let (controller, keys, display, _) = terminal(backlight: nil, tamperStopsEntry: true)
        let run = Task { await controller.run() }
        defer { run.cancel() }
        #expect(await eventually { keys.isStarted })
        keys.press("1")
        #expect(await eventually { display.frames.last?.rows[1].contains("* _ _ _") == true })
        await controller.tamperChanged(true)
        #expect(await eventually { display.frames.last?.rows[0].contains("Tamper alarm") == true })
        #expect(display.frames.last?.rows[1].contains("_ _ _ _") == true)  // the partial entry is cleared
        keys.press("2")
        await settle()
        #expect(display.frames.last?.rows[1].contains("_ _ _ _") == true)
        await controller.tamperChanged(false)
        #expect(await eventually { display.frames.last?.rows[0].contains("Enter PIN") == true })
        keys.press("2")
        #expect(await eventually { display.frames.last?.rows[1].contains("* _ _ _") == true })
    }
}
