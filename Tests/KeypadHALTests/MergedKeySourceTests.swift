import KeypadHAL
import KeypadTestSupport
import KioskPadCore
import Synchronization
import Testing

/// The keypad and the door's own card reader read as one source: every event of both
/// arrives, the first to end ends both, and a stop stops both.
@Suite("A keypad and a card reader as one key source")
struct MergedKeySourceTests {
    /// A source that runs until stopped, counting its stops.
    final class Held: KeySource, Sendable {
        let stops = Mutex(0)
        var isScripted: Bool { false }
        func start(deliver: @escaping @Sendable (KeySourceEvent) -> Void, finished: @escaping @Sendable ((any Error)?) -> Void) -> KeySourceRun {
            deliver(.key(.label("7")))
            return KeySourceRun(stop: { self.stops.withLock { $0 += 1 } })
        }
    }

    struct Unplugged: Error {}

    /// A source that delivers one card and then fails.
    struct CardThenFailure: KeySource {
        var isScripted: Bool { false }
        func start(deliver: @escaping @Sendable (KeySourceEvent) -> Void, finished: @escaping @Sendable ((any Error)?) -> Void) -> KeySourceRun {
            deliver(.card(SecretDigits(ascii: "00789888")!))
            finished(Unplugged())
            return KeySourceRun(stop: {})
        }
    }

    @Test func eventsOfBothArriveAndTheFirstFailureEndsBoth() {
        let keypad = Held()
        let events = Mutex<[String]>([])
        let endings = Mutex<[String]>([])
        _ = MergedKeySource(keypad, CardThenFailure()).start(
            deliver: { event in
                let name: String
                switch event {
                case .key(let key): name = "key \(key)"
                case .card(let digits): name = "card of \(digits.count)"
                case .quit: name = "quit"
                }
                events.withLock { $0.append(name) }
            },
            finished: { error in endings.withLock { $0.append(error.map { "\(type(of: $0))" } ?? "nil") } })
        #expect(events.withLock { $0 } == ["key label(\"7\")", "card of 8"])
        #expect(endings.withLock { $0 } == ["Unplugged"], "finished once, with the error")
        #expect(keypad.stops.withLock { $0 } == 1, "the keypad was stopped when the reader failed")
    }

    @Test func aStopStopsBothAndReportsNoEnding() {
        let (keypad, reader) = (Held(), Held())
        let endings = Mutex(0)
        let run = MergedKeySource(keypad, reader).start(deliver: { _ in }, finished: { _ in endings.withLock { $0 += 1 } })
        run.stop()
        #expect(keypad.stops.withLock { $0 } == 1 && reader.stops.withLock { $0 } == 1)
        #expect(endings.withLock { $0 } == 0)
        #expect(!MergedKeySource(keypad, ScriptedKeySource([])).isScripted && MergedKeySource(ScriptedKeySource([]), keypad).isScripted)
    }
}
