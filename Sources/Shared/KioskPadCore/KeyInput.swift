/// What a key does to an entry once its label has been resolved through ``KeyBindings``.
public enum KeyAction: Hashable, Sendable {
    /// A digit `0`...`9` (only labels listed in `allowed_keys` become digits).
    case digit(UInt8)
    /// Erase the last digit (delete moves back one slot).
    case back
    /// Erase every digit of the current entry.
    case clear
    /// Submit the entry (an end key), or dismiss a result.
    case submit
    /// Abandon the entry or dismiss a result or help screen.
    case cancel
    /// Show the "forgot PIN" help text.
    case help
    /// Begin an entry (`start_keys`): with start keys configured, digits count only after one.
    case start
}

/// One key press as a key source reports it: either a keypad label (`"7"`, `"#"`, `"A"`)
/// that ``KeyBindings`` resolves, or a named action (a laptop's Backspace, Enter or Esc).
public enum KeyInput: Hashable, Sendable {
    case label(Character)
    case action(KeyAction)
}
