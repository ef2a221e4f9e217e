import Foundation

/// Counts rejected requests (bad signature, replay, malformed) per source address in fixed
/// intervals, so that a flood costs neither one fsynced audit record per request nor
/// unbounded work: the first rejection of a source in an interval is audited on its own,
/// the rest are counted and written as one aggregated record when the interval ends, and a
/// source with more than `limit` rejections in the interval is throttled for everything
/// until it ends. Memory is bounded by the number of sources seen in one interval (capped).
public struct RejectionTally: Sendable {
    /// One source's interval, as written to the audit log when it closes.
    public struct Summary: Equatable, Sendable {
        public let source: String
        public let start: Date
        public let count: Int
        public let limited: Int
        public let refusals: [VerifierDecision.Refusal: Int]
    }

    public let interval: TimeInterval
    public let limit: Int
    public let maxSources: Int
    private var open: [String: (start: Date, count: Int, limited: Int, refusals: [VerifierDecision.Refusal: Int])] = [:]

    public init(interval: TimeInterval = 10, limit: Int = 20, maxSources: Int = 10_000) {
        self.interval = interval
        self.limit = limit
        self.maxSources = maxSources
    }

    /// True when `source` is over its limit for the current interval (answer 429 at once).
    public mutating func isLimited(_ source: String, now: Date) -> Bool {
        guard var entry = open[source], now.timeIntervalSince(entry.start) < interval, entry.count >= limit else { return false }
        entry.limited += 1
        open[source] = entry
        return true
    }

    /// Counts a rejection; true when it is the source's first in this interval (audit it alone).
    public mutating func note(_ source: String, refusal: VerifierDecision.Refusal, now: Date) -> Bool {
        if var entry = open[source], now.timeIntervalSince(entry.start) < interval {
            entry.count += 1
            entry.refusals[refusal, default: 0] += 1
            open[source] = entry
            return false
        }
        if open.count >= maxSources, open[source] == nil { return false }  // counted nowhere: still no fsync
        open[source] = (now, 1, 0, [refusal: 1])
        return true
    }

    /// Closes the intervals that have ended; each with more than its first rejection becomes
    /// one summary for the audit log.
    public mutating func closeEnded(now: Date) -> [Summary] {
        var summaries: [Summary] = []
        for (source, entry) in open where now.timeIntervalSince(entry.start) >= interval {
            open[source] = nil
            if entry.count > 1 || entry.limited > 0 {
                summaries.append(Summary(source: source, start: entry.start, count: entry.count, limited: entry.limited, refusals: entry.refusals))
            }
        }
        return summaries.sorted { $0.source < $1.source }
    }
}
