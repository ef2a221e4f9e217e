import Foundation
import Synchronization

/// Per-door limits on `/v1/events`, so that one door's secret can neither fill the disk nor
/// slow every door: records at a steady rate (a token bucket filled at
/// `recordsPerMinute / 60` a second, holding ``Limits/burst`` records) and bytes per UTC day
/// for each terminal. Counted in this process (each instance of a several-instance site
/// counts its own; a restart starts again), so a door stores at most ``Limits/bytesPerDay``
/// a day per instance, kept for `server.events.keep_days`.
public final class EventQuota: Sendable {
    /// The limits (`server.events.max_records_per_minute`, `max_bytes_per_day`).
    public struct Limits: Sendable, Equatable {
        public var recordsPerMinute: Int
        public var bytesPerDay: Int

        public init(recordsPerMinute: Int = 600, bytesPerDay: Int = 4_000_000) {
            self.recordsPerMinute = recordsPerMinute
            self.bytesPerDay = bytesPerDay
        }

        /// The records a door may send at once after a quiet spell: six seconds' worth, and at
        /// least one full batch (``DoorEventBatch/maxRecords``), so every batch fits in time.
        /// A minute's 600 records all at once were what slowed other doors' `/verify`.
        public var burst: Int { max(DoorEventBatch.maxRecords, recordsPerMinute / 10) }

        /// Records added to the bucket each second.
        var recordsPerSecond: Double { Double(max(1, recordsPerMinute)) / 60 }
    }

    /// A batch over a limit: which one, and in how many seconds it can be sent again.
    public struct Over: Sendable, Equatable {
        /// `records_per_minute` or `bytes_per_day`.
        public let limit: String
        public let retryAfter: Int
        /// The window the refusal falls in, its minute or its day (one quota record per door
        /// and window).
        public let window: Date
        /// True for the first refusal of this door in this window.
        public let first: Bool
    }

    private struct Usage {
        /// Records the door may send now, and when that was worked out.
        var tokens: Double
        var filledAt: Double
        /// A refused door is answered before its body until then (seconds since 1970).
        var refusedUntil: Double = 0
        var refusedLimit = ""
        var day: Int64 = -1
        var bytes = 0
        var overMinute: Int64 = -1
        var overDay: Int64 = -1

        mutating func fill(at seconds: Double, _ limits: Limits) {
            tokens = min(Double(limits.burst), tokens + max(0, seconds - filledAt) * limits.recordsPerSecond)
            filledAt = seconds
        }
    }

    public let limits: Limits
    private let usage = Mutex<[String: Usage]>([:])

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// What `door` is over already at `now` (refused, and its `Retry-After` not yet over),
    /// counting nothing: checked before a batch is decoded, so a door that goes on sending
    /// costs a signature check, not a parse of every record.
    public func isOver(door: String, now: Date) -> Over? {
        let seconds = now.timeIntervalSince1970
        return usage.withLock { table in
            guard let entry = table[door], seconds < entry.refusedUntil else { return nil }
            let window: Int64 = entry.refusedLimit == "bytes_per_day" ? 86_400 : 60
            return Over(
                limit: entry.refusedLimit, retryAfter: Self.wholeSeconds(entry.refusedUntil - seconds),
                window: Self.windowStart(seconds, window), first: false)
        }
    }

    /// Counts a batch of `records` records and `bytes` bytes from `door` at `now`; nil when
    /// it fits (and is counted), else what it is over (and nothing is counted).
    public func admit(door: String, records: Int, bytes: Int, now: Date) -> Over? {
        let seconds = now.timeIntervalSince1970
        let whole = Int64(seconds.rounded(.down))
        let (minute, day) = (whole / 60, whole / 86_400)
        return usage.withLock { table in
            var entry = table[door] ?? Usage(tokens: Double(limits.burst), filledAt: seconds)
            defer { table[door] = entry }
            entry.fill(at: seconds, limits)
            if entry.day != day { (entry.day, entry.bytes) = (day, 0) }
            if entry.bytes + bytes > limits.bytesPerDay {
                let first = entry.overDay != day
                entry.overDay = day
                let next = Double((day + 1) * 86_400)
                (entry.refusedUntil, entry.refusedLimit) = (next, "bytes_per_day")
                return Over(limit: "bytes_per_day", retryAfter: Self.wholeSeconds(next - seconds), window: Self.windowStart(seconds, 86_400), first: first)
            }
            if Double(records) > entry.tokens {
                let first = entry.overMinute != minute
                entry.overMinute = minute
                // Until the bucket holds this batch (a batch is never more than the burst).
                let wait = (Double(records) - entry.tokens) / limits.recordsPerSecond
                (entry.refusedUntil, entry.refusedLimit) = (seconds + wait, "records_per_minute")
                return Over(limit: "records_per_minute", retryAfter: Self.wholeSeconds(wait), window: Self.windowStart(seconds, 60), first: first)
            }
            entry.tokens -= Double(records)
            entry.bytes += bytes
            return nil
        }
    }

    /// Seconds for `Retry-After`: whole, rounded up, at least 1.
    private static func wholeSeconds(_ seconds: Double) -> Int { max(1, Int(seconds.rounded(.up))) }

    /// The start of the window of `length` seconds that holds `seconds`.
    private static func windowStart(_ seconds: Double, _ length: Int64) -> Date {
        Date(timeIntervalSince1970: Double(Int64(seconds.rounded(.down)) / length * length))
    }
}
