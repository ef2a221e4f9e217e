import KioskPadCore
import Synchronization

/// A ``ReportLimiter`` behind a lock, timed from its creation, for a report callback any
/// thread calls (dropped Wiegand frames, dropped OSDP messages).
public final class LockedReportLimiter: Sendable {
    private let limiter: Mutex<ReportLimiter>
    private let origin = ContinuousClock.now

    public init(interval: Duration) {
        limiter = Mutex(ReportLimiter(interval: interval))
    }

    /// The number of reports since the last one let through, when this one is; nil otherwise.
    public func note() -> Int? {
        let now = origin.duration(to: .now)
        return limiter.withLock { $0.note(at: now) }
    }
}
