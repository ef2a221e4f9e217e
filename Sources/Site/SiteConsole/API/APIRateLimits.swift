import Foundation
import Synchronization

/// Each token's own rate on this instance: a bucket of `burst` requests refilled at
/// `perSecond`. A token over it is answered 429 with `Retry-After`; other tokens are not
/// slowed.
final class APIRateLimits: Sendable {
    let perSecond: Double
    let burst: Double
    private let buckets = Mutex<[String: (tokens: Double, at: Date)]>([:])

    init(perSecond: Double = 20, burst: Double = 100) {
        self.perSecond = perSecond
        self.burst = burst
    }

    /// Nil when `token` may make a request at `now` (it is counted); else the seconds to wait.
    func admit(token: String, now: Date) -> Int? {
        buckets.withLock { buckets in
            var bucket = buckets[token] ?? (burst, now)
            bucket.tokens = min(burst, bucket.tokens + max(0, now.timeIntervalSince(bucket.at)) * perSecond)
            bucket.at = now
            defer { buckets[token] = bucket }
            guard bucket.tokens >= 1 else { return max(1, Int(((1 - bucket.tokens) / perSecond).rounded(.up))) }
            bucket.tokens -= 1
            return nil
        }
    }
}
