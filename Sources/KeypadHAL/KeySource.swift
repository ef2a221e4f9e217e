import KeypadCore

/// What a key source reports.
public enum KeySourceEvent: Equatable, Sendable {
    /// A key was pressed.
    case key(KeyInput)
    /// The user asked to quit (Ctrl-C on a keyboard).
    case quit
}

/// The seam between key hardware and the entry model: a terminal keyboard, a piped
/// script, a GPIO matrix or a test double. The stream finishes when the input ends.
public protocol KeySource: Sendable {
    /// True when keys are read from a script rather than typed live: the controller then
    /// feeds keys that arrive while verifying after the answer, instead of ignoring them.
    var isScripted: Bool { get }
    /// Starts reading; each call starts a new reader.
    func events() -> AsyncStream<KeySourceEvent>
}
