import KioskPadCore
import SiteCore
import Testing

/// The answer kept with a request's id: given back only for the same door's same attempt.
@Suite("Kept answers")
struct KeptAnswerTests {
    @Test(arguments: [
        VerifierDecision.granted(unlockSeconds: 4, user: "dana", duress: true), .denied(), .denied("See reception"), .lockedOut,
        .secondFactorRequired, .cardEnrolled, .enrolment(.pinSet(user: "dana")), .enrolment(.pinSet(user: nil)), .enrolment(.refused(.weakPIN)),
    ])
    func anAttemptsAnswerComesBackForTheSameAttemptOnly(_ decision: VerifierDecision) throws {
        let kept = try #require(KeptAnswer(decision, terminal: "door-1", attemptID: "a-1"))
        #expect(kept.decision(terminal: "door-1", attemptID: "a-1") == decision)
        #expect(KeptAnswer(encoded: kept.encoded).decision(terminal: "door-1", attemptID: "a-1") == decision)
        #expect(kept.decision(terminal: "door-2", attemptID: "a-1") == nil)
        #expect(kept.decision(terminal: "door-1", attemptID: "a-2") == nil)
    }

    @Test func whatIsNotAnAttemptsAnswerIsNotKept() {
        for decision in [VerifierDecision.unavailable, .throttled, .refused(.replayed, reason: "replay"), .repeated(.denied()), .enrolment(.unavailable)] {
            #expect(KeptAnswer(decision, terminal: "door-1", attemptID: "a-1") == nil, "\(decision)")
        }
        #expect(KeptAnswer(encoded: "not json").decision(terminal: "door-1", attemptID: "a-1") == nil)
    }
}
