/// Lets a repeated report (a dropped Wiegand frame) through at most once per `interval`,
/// and says how many occurred since the last one that went through, so a flood from a
/// faulty or hostile reader costs one log line or journal record per interval. Pure: each
/// occurrence comes with its time.
public struct ReportLimiter: Sendable, Equatable {
    public let interval: Duration
    private var lastReport: Duration?
    private var held = 0

    public init(interval: Duration) {
        self.interval = interval
    }

    /// Notes one occurrence at `now`: the number to report (this one and those held back
    /// since the last report) when a report is due, else nil.
    public mutating func note(at now: Duration) -> Int? {
        held += 1
        if let lastReport, now - lastReport < interval { return nil }
        lastReport = now
        defer { held = 0 }
        return held
    }
}
