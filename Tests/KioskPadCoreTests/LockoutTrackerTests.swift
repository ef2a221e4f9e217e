import KioskPadCore
import Testing

@Suite("Lockout policy")
struct LockoutTrackerTests {
    let policy = LockoutPolicy(maxFailures: 3, window: .seconds(60), lockout: .seconds(30), maxLockout: .seconds(100))

    @Test func locksAfterMaxFailuresWithinTheWindow() {
        var tracker = LockoutTracker(policy: policy)
        #expect(tracker.recordDenial(at: .seconds(0)) == nil)
        #expect(tracker.recordDenial(at: .seconds(10)) == nil)
        #expect(tracker.recordDenial(at: .seconds(20)) == .seconds(50))
        #expect(tracker.isLocked(at: .seconds(49)))
        #expect(!tracker.isLocked(at: .seconds(50)))
    }

    @Test func denialsOutsideTheWindowAreForgotten() {
        var tracker = LockoutTracker(policy: policy)
        _ = tracker.recordDenial(at: .seconds(0))
        _ = tracker.recordDenial(at: .seconds(10))
        #expect(tracker.recordDenial(at: .seconds(65)) == nil)
        #expect(tracker.recentFailures == 2)
    }

    @Test func consecutiveLockoutsDoubleUpToTheCap() {
        var tracker = LockoutTracker(policy: policy)
        var lengths: [Duration] = []
        var now = Duration.zero
        for _ in 0..<4 {
            var until: Duration?
            for _ in 0..<3 {
                until = tracker.recordDenial(at: now)
                now += .seconds(1)
            }
            let start = now - .seconds(1)
            lengths.append(until! - start)
            now = until!
        }
        #expect(lengths == [.seconds(30), .seconds(60), .seconds(100), .seconds(100)])
        #expect(tracker.streak == 4)
    }

    @Test func aGrantResetsFailuresAndDoubling() {
        var tracker = LockoutTracker(policy: policy)
        for second in 0..<3 { _ = tracker.recordDenial(at: .seconds(second)) }
        tracker.recordGrant()
        #expect(tracker.streak == 0)
        #expect(!tracker.isLocked(at: .seconds(3)))
        _ = tracker.recordDenial(at: .seconds(40))
        _ = tracker.recordDenial(at: .seconds(41))
        #expect(tracker.recordDenial(at: .seconds(42)) == .seconds(72))
    }
}
