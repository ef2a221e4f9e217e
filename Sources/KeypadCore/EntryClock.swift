/// The model's only source of time: a monotonic reading since an arbitrary origin.
public protocol EntryClock: Sendable {
    var now: Duration { get }
}

/// Monotonic time from the system's continuous clock (production).
public struct SystemEntryClock: EntryClock {
    private let origin = ContinuousClock.now
    public init() {}
    public var now: Duration { ContinuousClock.now - origin }
}

extension Duration {
    /// Whole milliseconds, rounded down (for logs, journals and poll(2) timeouts).
    public var wholeMilliseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }

    /// Whole nanoseconds, rounded down (for NIO deadlines).
    public var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
