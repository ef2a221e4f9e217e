import KioskPadCore
import Synchronization

/// What a key source reports.
public enum KeySourceEvent: Equatable, Sendable {
    /// A key was pressed.
    case key(KeyInput)
    /// A card was presented (a Wiegand card reader with `keypad.long_frames: card`): its
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

/// A running key reader; ``stop()`` ends it (idempotent).
public struct KeySourceRun: Sendable {
    private let stopping: @Sendable () -> Void

    public init(stop: @escaping @Sendable () -> Void) {
        stopping = stop
    }

    public func stop() {
        stopping()
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
