import DoorVerifierClient
import Foundation
import Testing

/// The push channel's nudge to an adopted door's check-in: a wait ends at its interval or
/// when nudged (and says which); a nudge while the check-in runs ends the next wait at once;
/// the channel's nudge returns once a check-in finished, or after its limit.
@Suite("The check-in nudge")
struct CheckInNudgeTests {
    @Test func aWaitEndsAtItsIntervalOrWhenNudged() async throws {
        let nudge = CheckInNudge()
        #expect(nudge.known == nil, "no check-in yet: the channel says nothing of settings")
        #expect(await nudge.wait(upTo: .milliseconds(50)) == false)
        let start = ContinuousClock.now
        async let nudged = nudge.wait(upTo: .seconds(30))
        try await Task.sleep(for: .milliseconds(50))
        // The check-in "runs" when woken: it reports, and the channel's nudge returns.
        let checkIn = Task {
            try await Task.sleep(for: .milliseconds(20))
            nudge.checkedIn(knowing: 7)
        }
        await nudge.nudge(waitingUpTo: .seconds(30))
        #expect(await nudged == true)
        #expect(ContinuousClock.now - start < .seconds(10))
        try await checkIn.value
        #expect(nudge.known == 7)
        nudge.checkedIn(knowing: 5)
        #expect(nudge.known == 7, "the newest version known is kept")
    }

    @Test func aNudgeWhileNobodyWaitsEndsTheNextWaitAtOnce() async throws {
        let nudge = CheckInNudge()
        let start = ContinuousClock.now
        // Nobody checks in: the channel's nudge gives up at its limit.
        await nudge.nudge(waitingUpTo: .milliseconds(100))
        #expect(ContinuousClock.now - start >= .milliseconds(100))
        #expect(await nudge.wait(upTo: .seconds(30)) == true, "the nudge was kept for the next wait")
        #expect(await nudge.wait(upTo: .milliseconds(50)) == false, "and only for one")
    }
}
