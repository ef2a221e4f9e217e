/// `display.backlight_timeout_s`: the backlight goes dark after the timeout with no key
/// while the terminal is idle (ready, nothing typed), and the next key only wakes it (that
/// key is not typed). Anything the terminal shows by itself (a result, an alert) lights it
/// too. Pure: times are readings of the terminal clock.
public struct BacklightTimer: Sendable, Equatable {
    public let timeout: Duration
    public private(set) var isLit = true
    private var lastActivity: Duration

    public init(timeout: Duration, at now: Duration) {
        self.timeout = timeout
        lastActivity = now
    }

    /// A key at `now`: returns true when the key should be used, false when it only woke
    /// the backlight.
    public mutating func key(at now: Duration) -> Bool {
        lastActivity = now
        guard isLit else {
            isLit = true
            return false
        }
        return true
    }

    /// Something worth seeing happened (a result, an alert): lit, and the timeout restarts.
    public mutating func wake(at now: Duration) {
        lastActivity = now
        isLit = true
    }

    /// When it goes dark if nothing happens, given whether the terminal is idle; nil when it
    /// stays as it is.
    public func deadline(idle: Bool) -> Duration? {
        isLit && idle ? lastActivity + timeout : nil
    }

    /// Goes dark when idle and the timeout has passed; returns true when that changed it.
    public mutating func expire(at now: Duration, idle: Bool) -> Bool {
        guard let deadline = deadline(idle: idle), now >= deadline else { return false }
        isLit = false
        return true
    }
}
