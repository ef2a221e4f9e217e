import DoorServices
import KeypadHAL
import KeypadTestSupport
import KioskPadCore
import Synchronization
import Testing

/// The watchdog's probe through the retrying keypad: the open keypad's reader answers; while
/// the keypad is down and waiting to be reopened there is no reader, and that is no hang.
@Suite("Retrying keypad: the watchdog's probe")
struct RetryingKeySourceProbeTests {
    @Test func theProbeIsTheOpenReadersAndTrueWhileWaitingToReopen() async throws {
        let time = ManualClock()
        let reopened = Mutex(false)
        let opened = Mutex(false)  // the first open fails, the second works
        let source = RetryingKeySource(
            open: {
                if opened.withLock({ $0 }) { return HeldKeys(stopped: {}, readerAlive: false) }
                opened.withLock { $0 = true }
                throw KeyedError(key: "keypad.chip", message: "no GPIO chip", kind: .unavailable(retryable: true))
            },
            report: { ok, _ in if ok { reopened.withLock { $0 = true } } }, clock: TerminalClock(time))
        let run = source.start(deliver: { _ in }, finished: { _ in })
        #expect(await eventually { time.sleepers == 1 })
        #expect(await run.probe(within: .seconds(1)), "down and waiting to reopen: nothing is hung")
        time.advance(by: .seconds(1))
        #expect(await eventually { reopened.withLock { $0 } })
        var answered = true
        for _ in 0..<500 where answered {
            answered = await run.probe(within: .seconds(1))
            if answered { try await Task.sleep(for: .milliseconds(2)) }
        }
        #expect(answered == false, "open again: the keypad reader's own answer (stuck) comes through")
        run.stop()
    }
}
