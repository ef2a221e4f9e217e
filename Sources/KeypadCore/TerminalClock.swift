/// The terminal's one clock: monotonic readings (the entry model's ``EntryClock``) and
/// sleeps (the timers: the controller's tick, the door relay, feedback patterns, keypad
/// retry, event forwarding), both from one `Clock` whose durations are `Duration`:
/// `ContinuousClock` in production, a manual clock in tests, so every timer can run in
/// virtual time. Wall-clock timestamps (journal, signatures) are `Date`s, taken where
/// they are written.
public struct TerminalClock: EntryClock {
    private let reading: @Sendable () -> Duration
    private let sleeping: @Sendable (Duration) async throws -> Void

    public init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        reading = { origin.duration(to: clock.now) }
        sleeping = { duration in try await clock.sleep(until: clock.now.advanced(by: duration), tolerance: nil) }
    }

    /// The system's monotonic clock, which keeps counting while the machine is suspended.
    public static var continuous: TerminalClock { TerminalClock(ContinuousClock()) }

    /// Time since this clock was made.
    public var now: Duration { reading() }

    /// Sleeps for `duration` on this clock; throws `CancellationError` when cancelled.
    public func sleep(for duration: Duration) async throws {
        try await sleeping(duration)
    }
}
