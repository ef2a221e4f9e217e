/// The one place `Duration` is turned into the units other APIs take (milliseconds for logs
/// and poll(2), nanoseconds for NIO and swift-metrics, seconds for `Date` and
/// `Thread.sleep`, a seconds-and-nanoseconds pair for `timespec`). Each rounds down unless
/// its name says otherwise, and each keeps the whole seconds.
extension Duration {
    /// Whole milliseconds, rounded down (for logs, journals and poll(2) timeouts).
    public var wholeMilliseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }

    /// Milliseconds, rounded up to a whole one, at nanosecond resolution (for poll(2)
    /// timeouts: a wait shorter than 1 ms sleeps 1 ms rather than returning at once).
    public var roundedUpMilliseconds: Int {
        (self + .nanoseconds(999_999)).wholeMilliseconds
    }

    /// Whole nanoseconds, rounded down (for NIO deadlines and swift-metrics timers).
    public var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// Whole seconds, rounded down (for "unlocked for N s").
    public var wholeSeconds: Int {
        Int(components.seconds)
    }

    /// Seconds, rounded up to the next whole second (for a countdown on the display).
    public var roundedUpSeconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) + (attoseconds > 0 ? 1 : 0)
    }

    /// Seconds as a floating-point number (for `Date` and `Thread.sleep`).
    public var timeInterval: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Whole seconds and the nanoseconds beyond them (for `timespec`).
    public var secondsAndNanoseconds: (seconds: Int, nanoseconds: Int) {
        let (seconds, attoseconds) = components
        return (Int(seconds), Int(attoseconds / 1_000_000_000))
    }
}
