import DoorController
import DoorServices
import KeypadDisplay
import KeypadHAL
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import Synchronization
import Testing

/// Timers on the terminal's one clock run in virtual time: a test moves a ManualClock and
/// nothing waits for real seconds.
@Suite("Timers in virtual time")
struct VirtualTimeTests {
    @Test func theManualClockWakesSleepersAtTheirDeadlineAndCancelsThem() async throws {
        let time = ManualClock()
        let clock = TerminalClock(time)
        let woke = Mutex(false)
        let sleeper = Task {
            try await clock.sleep(for: .seconds(2))
            woke.withLock { $0 = true }
        }
        #expect(await eventually { time.sleepers == 1 })
        time.advance(by: .milliseconds(1_999))
        #expect(!woke.withLock { $0 })
        time.advance(by: .milliseconds(1))
        try await sleeper.value
        #expect(woke.withLock { $0 })
        #expect(clock.now == .seconds(2))
        let cancelled = Task { try await clock.sleep(for: .seconds(1)) }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
    }

    @Test func aFailingKeypadIsRetriedAfter1Then2Then4SecondsAndRecovers() async throws {
        let time = ManualClock()
        let (working, typing) = AsyncStream.makeStream(of: KeySourceEvent.self)
        typing.yield(.key(.label("5")))
        let opens = Mutex(0)
        let reports = Mutex<[Bool]>([])
        let source = RetryingKeySource(
            open: {
                let attempt = opens.withLock { count in
                    count += 1
                    return count
                }
                guard attempt >= 4 else { throw KeyedError(key: "keypad.chip", message: "no GPIO chip", kind: .unavailable(retryable: true)) }
                return LiveKeys(stream: working)
            },
            report: { ok, _ in reports.withLock { $0.append(ok) } },
            clock: TerminalClock(time))
        var keys = source.events().makeAsyncIterator()
        for (wait, opened) in [(Duration.seconds(1), 2), (.seconds(2), 3), (.seconds(4), 4)] {
            #expect(await eventually { time.sleepers == 1 })
            time.advance(by: wait - .milliseconds(1))
            try await Task.sleep(for: .milliseconds(20))
            #expect(opens.withLock { $0 } == opened - 1, "not before \(wait)")
            time.advance(by: .milliseconds(1))
            #expect(await eventually { opens.withLock { $0 } == opened })
        }
        #expect(await keys.next() == .key(.label("5")))
        #expect(reports.withLock { $0 } == [false, true], "down once, then recovered")
    }

    @Test func aKeypadThatFailsWhileRunningIsReportedWithItsErrorClearsTheEntryAndIsStoppedOnStop() async throws {
        let time = ManualClock()
        let reports = Mutex<[String]>([])
        let stops = Mutex(0)
        let opens = Mutex(0)
        let source = RetryingKeySource(
            open: {
                let first = opens.withLock { count in
                    count += 1
                    return count == 1
                }
                return first
                    ? FailingKeys(error: KeyedError(key: "keypad", message: "GPIO error while reading", kind: .unavailable(retryable: true)))
                    : HeldKeys(stopped: { stops.withLock { $0 += 1 } })
            },
            report: { ok, problem in reports.withLock { $0.append(ok ? "up" : "down: \(problem ?? "")") } },
            clock: TerminalClock(time))
        let delivered = Mutex<[KeySourceEvent]>([])
        let run = source.start(deliver: { event in delivered.withLock { $0.append(event) } }, finished: { _ in })
        #expect(await eventually { time.sleepers == 1 })
        #expect(reports.withLock { $0 } == ["down: keypad: GPIO error while reading"])
        #expect(delivered.withLock { $0 } == [.key(.action(.clear))], "a partial entry is wiped when the keypad fails")
        time.advance(by: .seconds(1))
        #expect(await eventually { reports.withLock { $0 }.count == 2 })
        #expect(reports.withLock { $0 }.last == "up")
        run.stop()
        #expect(await eventually { stops.withLock { $0 } == 1 }, "the open keypad is stopped with the retrying source")
        #expect(opens.withLock { $0 } == 2)
    }

    @Test func theInactivityTimeoutClearsAPartialEntryWhenTheClockSaysSo() async throws {
        let time = ManualClock()
        let (keys, typing) = AsyncStream.makeStream(of: KeySourceEvent.self)
        let display = RecordingDisplay(geometry: .lcd1602)
        let hash = try PINHash.make(pin: SecretDigits(ascii: "1234")!, iterations: 1_000)
        let controller = KioskController(
            entry: EntryOptions(inactivityTimeout: .seconds(10)), composer: FrameComposer(geometry: .lcd1602), display: display,
            verifier: LocalVerifier(users: UsersFile(users: [UserRecord(name: "demo", pinHash: hash)])),
            source: LiveKeys(stream: keys), terminalID: "test", clock: TerminalClock(time))
        let run = Task { await controller.run() }
        typing.yield(.key(.label("1")))
        typing.yield(.key(.label("2")))
        let twoFilled: @Sendable () -> Bool = { display.frames.last.map { $0.rows[1].filter { $0 != " " } } == "**__" }
        #expect(await eventually { twoFilled() })
        #expect(await eventually { time.sleepers == 1 })  // the controller's tick waits for the timeout
        time.advance(by: .milliseconds(9_999))
        try await Task.sleep(for: .milliseconds(20))
        #expect(twoFilled(), "not cleared before the timeout")
        time.advance(by: .milliseconds(1))
        #expect(await eventually { display.frames.last.map { $0.rows[1].filter { $0 != " " } } == "____" })
        typing.yield(.quit)
        #expect(await run.value == .quit)
    }
}

/// Keys typed by the test while the controller runs.
struct LiveKeys: KeySource {
    let stream: AsyncStream<KeySourceEvent>
    var isScripted: Bool { false }

    func start(
        deliver: @escaping @Sendable (KeySourceEvent) -> Void,
        finished: @escaping @Sendable ((any Error)?) -> Void
    ) -> KeySourceRun {
        let stream = self.stream
        let task = Task {
            for await event in stream { deliver(event) }
            if !Task.isCancelled { finished(nil) }
        }
        return KeySourceRun(stop: { task.cancel() })
    }
}

/// A keypad that fails as soon as it starts.
struct FailingKeys: KeySource {
    let error: any Error
    var isScripted: Bool { false }

    func start(
        deliver: @escaping @Sendable (KeySourceEvent) -> Void,
        finished: @escaping @Sendable ((any Error)?) -> Void
    ) -> KeySourceRun {
        finished(error)
        return KeySourceRun(stop: {})
    }
}

/// A keypad that runs until stopped, and says when it is.
struct HeldKeys: KeySource {
    let stopped: @Sendable () -> Void
    /// What the reader's watchdog probe answers.
    var readerAlive = true
    var isScripted: Bool { false }

    func start(
        deliver: @escaping @Sendable (KeySourceEvent) -> Void,
        finished: @escaping @Sendable ((any Error)?) -> Void
    ) -> KeySourceRun {
        let alive = readerAlive
        return KeySourceRun(stop: stopped, probe: { _ in alive })
    }
}
