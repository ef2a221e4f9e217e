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
