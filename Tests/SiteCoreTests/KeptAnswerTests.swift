import KioskPadCore
import SiteCore
import Testing

/// The answer kept with a request's id: given back only for the same door's same attempt, in a
/// request identical to the one it answered.
@Suite("Kept answers")
struct KeptAnswerTests {
    static func incoming(_ body: String, signature: String = "v1,c2ln", timestamp: String = "1700000000") -> ReferenceVerifier.Incoming {
        ReferenceVerifier.Incoming(
            contentType: "application/json", webhookID: "msg-1", webhookTimestamp: timestamp, webhookSignature: signature, body: Array(body.utf8))
    }
    static let first = incoming(#"{"terminal_id":"door-1","attempt_id":"a-1","pin":"1234"}"#)

    @Test(arguments: [
        VerifierDecision.granted(unlockSeconds: 4, user: "dana", duress: true), .denied(), .denied("See reception"), .lockedOut,
        .secondFactorRequired, .cardEnrolled, .enrolment(.pinSet(user: "dana")), .enrolment(.pinSet(user: nil)), .enrolment(.refused(.weakPIN)),
    ])
    func anAttemptsAnswerComesBackForTheSameAttemptOnly(_ decision: VerifierDecision) throws {
        let kept = try #require(KeptAnswer(decision, terminal: "door-1", attemptID: "a-1", request: Self.first))
        #expect(kept.decision(terminal: "door-1", attemptID: "a-1", request: Self.first) == decision)
        #expect(KeptAnswer(encoded: kept.encoded).decision(terminal: "door-1", attemptID: "a-1", request: Self.first) == decision)
        #expect(kept.decision(terminal: "door-2", attemptID: "a-1", request: Self.first) == nil)
        #expect(kept.decision(terminal: "door-1", attemptID: "a-2", request: Self.first) == nil)
    }

    /// The same id and attempt with another PIN, or the same body signed anew, is another
    /// request: it gets no kept answer.
    @Test func anotherBodyOrSignatureUnderTheSameIDGetsNothing() throws {
        let kept = try #require(KeptAnswer(.granted(unlockSeconds: 4, user: "alice"), terminal: "door-1", attemptID: "a-1", request: Self.first))
        let otherPIN = Self.incoming(#"{"terminal_id":"door-1","attempt_id":"a-1","pin":"0000"}"#)
        #expect(kept.decision(terminal: "door-1", attemptID: "a-1", request: otherPIN) == nil)
        let resigned = Self.incoming(#"{"terminal_id":"door-1","attempt_id":"a-1","pin":"1234"}"#, signature: "v1,b3RoZXI=")
        #expect(kept.decision(terminal: "door-1", attemptID: "a-1", request: resigned) == nil)
        let later = Self.incoming(#"{"terminal_id":"door-1","attempt_id":"a-1","pin":"1234"}"#, timestamp: "1700000001")
        #expect(kept.decision(terminal: "door-1", attemptID: "a-1", request: later) == nil)
        #expect(!kept.encoded.contains("1234"), "the kept answer holds no PIN")
    }

    /// An answer kept before digests were (no `request_digest`) is given to nobody.
    @Test func anAnswerKeptWithoutADigestIsGivenToNobody() {
        let old = KeptAnswer(encoded: #"{"terminal":"door-1","attempt_id":"a-1","kind":"answer","granted":true}"#)
        #expect(old.decision(terminal: "door-1", attemptID: "a-1", request: Self.first) == nil)
    }

    @Test func whatIsNotAnAttemptsAnswerIsNotKept() {
        for decision in [VerifierDecision.unavailable, .throttled, .refused(.replayed, reason: "replay"), .repeated(.denied()), .enrolment(.unavailable)] {
            #expect(KeptAnswer(decision, terminal: "door-1", attemptID: "a-1", request: Self.first) == nil, "\(decision)")
        }
        #expect(KeptAnswer(encoded: "not json").decision(terminal: "door-1", attemptID: "a-1", request: Self.first) == nil)
    }
}
