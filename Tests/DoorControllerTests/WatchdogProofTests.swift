import DoorController
import KeypadDisplay
import KeypadHAL
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import Synchronization
import Testing

/// A live keypad that never ends, whose reader's probe answers as told.
final class ProbedKeySource: KeySource {
    let readerAlive = Atomic<Bool>(true)
    var isScripted: Bool { false }

    func start(
        deliver: @escaping @Sendable (KeySourceEvent) -> Void, finished: @escaping @Sendable ((any Error)?) -> Void
    ) -> KeySourceRun {
        KeySourceRun(stop: {}, probe: { [self] _ in readerAlive.load(ordering: .relaxed) })
    }
}

/// A display whose `show` hangs once ``hang()`` is called (an I2C write that never returns).
final class HangingDisplay: DisplayDriver {
    let geometry = DisplayGeometry.lcd1602
    private let gate = GatedSink(held: true)
    private let hanging = Atomic<Bool>(false)

    func hang() {
        hanging.store(true, ordering: .relaxed)
    }

    func show(_ frame: Frame) async throws {
        if hanging.load(ordering: .relaxed) { await gate.handle(.displayError) }
    }

    func close() async {}
    var stuck: Int { gate.held }
}

@Suite("Watchdog proof: the entry loop and the keypad reader")
struct WatchdogProofTests {
    static func controller(source: any KeySource, display: any DisplayDriver) -> KioskController {
        KioskController(
            entry: EntryOptions(), composer: FrameComposer(geometry: .lcd1602), display: display,
            verifier: LocalVerifier(users: UsersFile(users: [])), source: source, terminalID: "test")
    }

    @Test(.timeLimit(.minutes(1))) func aliveWhileTheLoopRunsAndTheReaderGoesRound() async {
        let source = ProbedKeySource()
        let controller = Self.controller(source: source, display: RecordingDisplay(geometry: .lcd1602))
        #expect(await controller.heartbeat(within: .seconds(1)) == .notRunning)
        let run = Task { await controller.run() }
        #expect(await firstLiveness(of: controller) == .alive)
        source.readerAlive.store(false, ordering: .relaxed)
        #expect(await controller.heartbeat(within: .milliseconds(300)) == .keypadStuck)
        run.cancel()
    }

    @Test(.timeLimit(.minutes(1))) func aLoopStuckDrawingTheDisplayIsNotProvenAlive() async {
        let display = HangingDisplay()
        let controller = Self.controller(source: ProbedKeySource(), display: display)
        let run = Task { await controller.run() }
        #expect(await firstLiveness(of: controller) == .alive)
        display.hang()
        // The tamper text is a new frame: the loop's render reaches the hung display.
        await controller.tamperChanged(true)
        #expect(await eventually { display.stuck == 1 })
        let started = ContinuousClock.now
        #expect(await controller.heartbeat(within: .milliseconds(300)) == .loopStuck)
        #expect(ContinuousClock.now - started >= .milliseconds(300))
        run.cancel()
    }

    /// The first heartbeat that is not `.notRunning` (the loop may not have started yet).
    func firstLiveness(of controller: KioskController) async -> KioskController.Liveness {
        for _ in 0..<500 {
            let found = await controller.heartbeat(within: .seconds(2))
            if found != .notRunning { return found }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return .notRunning
    }
}
