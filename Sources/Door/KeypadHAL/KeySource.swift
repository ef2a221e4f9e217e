import KioskPadCore
import Synchronization

/// What a key source reports.
public enum KeySourceEvent: Equatable, Sendable {
    /// A key was pressed.
    case key(KeyInput)
    /// A card was presented (a Wiegand reader with `keypad.long_frames: card`, an OSDP reader,
    /// a USB reader that types, `card_reader:`): its
    /// number as decimal digits, submitted at once as an attempt of kind `card`.
    case card(SecretDigits)
    /// The user asked to quit (Ctrl-C on a keyboard).
    case quit

    /// Keys by value; cards by identity (a card's digits are never compared outside a verifier).
    public static func == (lhs: KeySourceEvent, rhs: KeySourceEvent) -> Bool {
        switch (lhs, rhs) {
        case (.key(let left), .key(let right)): return left == right
        case (.card(let left), .card(let right)): return left === right
        case (.quit, .quit): return true
        default: return false
        }
    }
}

/// The seam between key hardware and the entry model: a terminal keyboard, a piped
/// script, a GPIO matrix or a test double. A source calls its consumer directly from the
/// thread or task that reads the keys, so a key reaches the controller's queue in one hop.
public protocol KeySource: Sendable {
    /// True when keys are read from a script rather than typed live: the controller then
    /// feeds keys that arrive while verifying after the answer, instead of ignoring them.
    var isScripted: Bool { get }

    /// Starts a new reader: `deliver` for every event, in order, then `finished` once when
    /// the input ends (nil) or the source fails (the error). ``KeySourceRun/stop()`` ends
    /// the reader early; `finished` is not called then.
    func start(
        deliver: @escaping @Sendable (KeySourceEvent) -> Void,
        finished: @escaping @Sendable ((any Error)?) -> Void
    ) -> KeySourceRun
}

/// A running key reader; ``stop()`` ends it (idempotent); ``probe(within:)`` proves it still
/// reads (for the watchdog).
public struct KeySourceRun: Sendable {
    private let stopping: @Sendable () -> Void
    private let probing: @Sendable (Duration) async -> Bool

    /// `probe` makes the reader go round its loop once and answers whether it did within the
    /// time given; a reader with nothing to prove (a terminal, a script, one blocked in the
    /// kernel's `read`) leaves it out and always answers true.
    public init(stop: @escaping @Sendable () -> Void, probe: @escaping @Sendable (Duration) async -> Bool = { _ in true }) {
        stopping = stop
        probing = probe
    }

    public func stop() {
        stopping()
    }

    /// True when the reader went round its loop within `limit` (a GPIO keypad: its scan
    /// thread woke and looked at the lines).
    public func probe(within limit: Duration) async -> Bool {
        await probing(limit)
    }
}

extension KeySource {
    /// The events as a stream that finishes when the input ends (for tests and tools);
    /// dropping the stream stops the reader.
    public func events() -> AsyncStream<KeySourceEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: KeySourceEvent.self)
        let run = start(deliver: { continuation.yield($0) }, finished: { _ in continuation.finish() })
        continuation.onTermination = { _ in run.stop() }
        return stream
    }
}
