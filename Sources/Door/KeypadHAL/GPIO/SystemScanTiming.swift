import KioskPadCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Real time for the scan thread, on `CLOCK_MONOTONIC` (the clock of the kernel's GPIO edge
/// timestamps). Waits are absolute, so a late wake-up does not push later deadlines back:
/// a wait shorter than `spinBelow` spins on the clock (a sleep that short is mostly
/// scheduler latency), a longer one sleeps in `clock_nanosleep(TIMER_ABSTIME)`.
public final class SystemScanTiming: ScanTiming {
    /// Waits shorter than this spin instead of sleeping.
    public static let defaultSpinBelow: Duration = .microseconds(200)

    public let spinBelow: Duration

    public init(spinBelow: Duration = SystemScanTiming.defaultSpinBelow) {
        self.spinBelow = spinBelow
    }

    public var now: Duration {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return .seconds(spec.tv_sec) + .nanoseconds(spec.tv_nsec)
    }

    public func wait(until deadline: Duration) {
        let remaining = deadline - now
        guard remaining > .zero else { return }
        if remaining < spinBelow {
            while now < deadline {}
            return
        }
        #if canImport(Glibc)
            let (seconds, nanoseconds) = deadline.secondsAndNanoseconds
            var request = timespec(tv_sec: seconds, tv_nsec: nanoseconds)
            while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &request, nil) == EINTR {}
        #else
            let (seconds, nanoseconds) = (deadline - now).secondsAndNanoseconds
            var relative = timespec(tv_sec: seconds, tv_nsec: nanoseconds)
            nanosleep(&relative, nil)
        #endif
    }
}
