/// After `maxFailures` denials within `window`, lock for `lockout`, doubling on each
/// consecutive lockout up to `maxLockout`. A grant resets everything. Verifier errors never count.
public struct LockoutPolicy: Equatable, Sendable {
    public var maxFailures: Int
    public var window: Duration
    public var lockout: Duration
    public var maxLockout: Duration

    public init(
        maxFailures: Int = 5,
        window: Duration = .seconds(300),
        lockout: Duration = .seconds(30),
        maxLockout: Duration = .seconds(900)
    ) {
        self.maxFailures = maxFailures
        self.window = window
        self.lockout = lockout
        self.maxLockout = maxLockout
    }
}

/// The running state of a ``LockoutPolicy``: recent denials and the lockout streak.
public struct LockoutTracker: Equatable, Sendable {
    public let policy: LockoutPolicy
    private var failures: [Duration] = []
    /// How many lockouts in a row since the last grant.
    public private(set) var streak = 0
    public private(set) var lockedUntil: Duration?

    public init(policy: LockoutPolicy) {
        self.policy = policy
    }

    /// A tracker as it was saved (``failureTimes``, ``streak``, ``lockedUntil``), e.g. in a
    /// database shared by several verifiers.
    public init(policy: LockoutPolicy, failureTimes: [Duration], streak: Int, lockedUntil: Duration?) {
        self.policy = policy
        failures = failureTimes
        self.streak = streak
        self.lockedUntil = lockedUntil
    }

    /// When the denials counted towards the next lockout happened.
    public var failureTimes: [Duration] { failures }

    /// Records a denial at `now`; returns the end of a lockout if this denial starts one.
    public mutating func recordDenial(at now: Duration) -> Duration? {
        failures.removeAll { now - $0 >= policy.window }
        failures.append(now)
        guard failures.count >= policy.maxFailures else { return nil }
        failures.removeAll()
        streak += 1
        var length = policy.lockout
        for _ in 1..<streak where length < policy.maxLockout { length = length * 2 }
        let until = now + min(length, policy.maxLockout)
        lockedUntil = until
        return until
    }

    /// A grant forgives every earlier denial and resets the doubling.
    public mutating func recordGrant() {
        failures.removeAll()
        streak = 0
        lockedUntil = nil
    }

    /// True while a lockout is running at `now`.
    public func isLocked(at now: Duration) -> Bool {
        guard let until = lockedUntil else { return false }
        return now < until
    }

    /// Denials counted towards the next lockout.
    public var recentFailures: Int { failures.count }
}
