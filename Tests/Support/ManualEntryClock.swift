import KioskPadCore
import Synchronization

/// A clock that moves only when told to (tests and simulations).
public final class ManualEntryClock: EntryClock {
    private let current: Mutex<Duration>

    public init(_ start: Duration = .zero) {
        current = Mutex(start)
    }

    public var now: Duration { current.withLock { $0 } }

    public func advance(by step: Duration) {
        current.withLock { $0 += step }
    }
}
