import Synchronization

/// Hands what was opened at start (the scan loop, the input device; nil if it did not open)
/// to the first keypad open, once.
public final class OpenedAtStart<Value>: Sendable {
    private let slot: Mutex<Value?>

    public init(_ value: sending Value?) {
        slot = Mutex(value)
    }

    public func take() -> sending Value? {
        slot.withLock { value in
            defer { value = nil }
            return value
        }
    }
}
