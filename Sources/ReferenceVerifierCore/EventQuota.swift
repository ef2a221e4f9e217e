import Foundation
import Synchronization

/// Per-door limits on `/v1/events`, so that one door's secret can neither fill the disk nor
/// slow every door: records per minute and bytes per UTC day for each terminal. Counted in
/// this process (each instance of a several-instance site counts its own; a restart starts
/// again), so a door stores at most ``Limits/bytesPerDay`` a day per instance, kept for
/// `server.events.keep_days`.
public final class EventQuota: Sendable {
    /// The limits (`server.events.max_records_per_minute`, `max_bytes_per_day`).
    public struct Limits: Sendable, Equatable {
        public var recordsPerMinute: Int
        public var bytesPerDay: Int

        public init(recordsPerMinute: Int = 600, bytesPerDay: Int = 4_000_000) {
            self.recordsPerMinute = recordsPerMinute
            self.bytesPerDay = bytesPerDay
        }
    }

    /// A batch over a limit: which one, and in how many seconds the window ends.
    public struct Over: Sendable, Equatable {
        /// `records_per_minute` or `bytes_per_day`.
        public let limit: String
        public let retryAfter: Int
        /// The window's start (one quota record per door and window).
        public let window: Date
        /// True for the first refusal of this door in this window.
        public let first: Bool
    }

    private struct Usage {
        var minute: Int64 = -1
        var records = 0
        var day: Int64 = -1
        var bytes = 0
        var overMinute: Int64 = -1
        var overDay: Int64 = -1
    }

    public let limits: Limits
    private let usage = Mutex<[String: Usage]>([:])

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// What `door` is over already at `now` (its minute's records or its day's bytes used
    /// up), counting nothing: checked before a batch is decoded, so a door that goes on
    /// sending costs a signature check, not a parse of every record.
    public func isOver(door: String, now: Date) -> Over? {
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        let (minute, day) = (seconds / 60, seconds / 86_400)
        return usage.withLock { table in
            guard let entry = table[door] else { return nil }
            if entry.overDay == day { return EventQuota.over("bytes_per_day", windowSeconds: 86_400, at: seconds, first: false) }
            if entry.overMinute == minute { return EventQuota.over("records_per_minute", windowSeconds: 60, at: seconds, first: false) }
            return nil
        }
    }

    /// Counts a batch of `records` records and `bytes` bytes from `door` at `now`; nil when
    /// it fits (and is counted), else what it is over (and nothing is counted).
    public func admit(door: String, records: Int, bytes: Int, now: Date) -> Over? {
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        let (minute, day) = (seconds / 60, seconds / 86_400)
        return usage.withLock { table in
            var entry = table[door] ?? Usage()
            if entry.minute != minute { (entry.minute, entry.records) = (minute, 0) }
            if entry.day != day { (entry.day, entry.bytes) = (day, 0) }
            defer { table[door] = entry }
            if entry.bytes + bytes > limits.bytesPerDay {
                defer { entry.overDay = day }
                return EventQuota.over("bytes_per_day", windowSeconds: 86_400, at: seconds, first: entry.overDay != day)
            }
            if entry.records + records > limits.recordsPerMinute {
                defer { entry.overMinute = minute }
                return EventQuota.over("records_per_minute", windowSeconds: 60, at: seconds, first: entry.overMinute != minute)
            }
            entry.records += records
            entry.bytes += bytes
            return nil
        }
    }

    /// `limit` over in the window of `windowSeconds` that holds `seconds`: its start, and
    /// the seconds until it ends.
    private static func over(_ limit: String, windowSeconds: Int64, at seconds: Int64, first: Bool) -> Over {
        let start = seconds / windowSeconds * windowSeconds
        return Over(limit: limit, retryAfter: Int(start + windowSeconds - seconds), window: Date(timeIntervalSince1970: Double(start)), first: first)
    }
}
