/// The terminal's one clock: monotonic readings (the entry model's ``EntryClock``) and
/// sleeps (the timers: the controller's tick, the door relay, feedback patterns, keypad
/// retry, event forwarding), both from one `Clock` whose durations are `Duration`:
/// `ContinuousClock` in production, a manual clock in tests, so every timer can run in
/// virtual time. Wall-clock timestamps (journal, signatures) are `Date`s, taken where
/// they are written.
public struct TerminalClock: EntryClock {
    private let reading: @Sendable () -> Duration
    /// Sleeps until a reading (a time since `origin`).
    private let sleepingUntil: @Sendable (Duration) async throws -> Void

    /// True for the system's clock (``continuous``): a deadline on it can be waited for by a
    /// thread of one's own; false for a test's clock, which only its own sleeps follow.
    public let isSystem: Bool

    public init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        reading = { origin.duration(to: clock.now) }
        sleepingUntil = { deadline in try await clock.sleep(until: origin.advanced(by: deadline), tolerance: nil) }
        isSystem = C.self == ContinuousClock.self
    }

    /// The system's monotonic clock, which keeps counting while the machine is suspended.
    public static var continuous: TerminalClock { TerminalClock(ContinuousClock()) }

    /// Time since this clock was made.
    public var now: Duration { reading() }

    /// Sleeps for `duration` from now on this clock; throws `CancellationError` when cancelled.
    public func sleep(for duration: Duration) async throws {
        try await sleepingUntil(now + duration)
    }

    /// Sleeps until the reading `deadline` (a ``now`` value), however late the sleep starts:
    /// a timer scheduled by deadline does not drift by the time it took to start it.
    public func sleep(until deadline: Duration) async throws {
        try await sleepingUntil(deadline)
    }
}
