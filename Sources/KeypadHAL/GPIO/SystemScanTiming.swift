#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Real time for the scan thread: the monotonic clock and `nanosleep(2)` (the scan loop
/// runs on its own thread, so blocking is what it should do).
public final class SystemScanTiming: ScanTiming {
    public init() {}

    public var now: Duration {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return .seconds(spec.tv_sec) + .nanoseconds(spec.tv_nsec)
    }

    public func sleep(for duration: Duration) {
        let (seconds, nanoseconds) = duration.secondsAndNanoseconds
        var request = timespec(tv_sec: seconds, tv_nsec: nanoseconds)
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}
