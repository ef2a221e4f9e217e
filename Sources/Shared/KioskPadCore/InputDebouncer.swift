/// Debounces one on/off input (door contact, exit button, tamper) by time: a new level
/// counts once it has held, unchanged, for `debounce`. Pure: readings come with their time.
public struct InputDebouncer: Sendable, Equatable {
    public let debounce: Duration
    /// The last level that held for the debounce time.
    public private(set) var stable: Bool
    private var candidate: Bool
    private var since: Duration

    public init(initial: Bool, debounce: Duration, at now: Duration) {
        self.debounce = debounce
        stable = initial
        candidate = initial
        since = now
    }

    /// Takes a reading; returns when ``settle(at:)`` should next be called (nil: nothing
    /// pending, the reading equals the stable level).
    public mutating func observe(_ level: Bool, at now: Duration) -> Duration? {
        if level != candidate {
            candidate = level
            since = now
        }
        return candidate == stable ? nil : since + debounce
    }

    /// The new stable level, when the candidate has held for the debounce time by `now`.
    public mutating func settle(at now: Duration) -> Bool? {
        guard candidate != stable, now - since >= debounce else { return nil }
        stable = candidate
        return stable
    }
}
