import Foundation
import KioskPadAccess
import KioskPadCore
import SiteCore
import SiteHTTP
import Testing

/// The HTTP layer alone decides statuses (docs/openapi.yaml); the decision logic returns
/// a ``VerifierDecision`` and knows no HTTP.
@Suite("Verifier decisions as HTTP replies")
struct HTTPReplyTests {
    @Test(arguments: [
        (VerifierDecision.granted(unlockSeconds: 4), 200, "{\"decision\":\"granted\",\"unlock_seconds\":4}"),
        (.lockedOut, 200, "{\"decision\":\"denied\",\"message\":\"Locked out\"}"),
        // An attempt sent again gets the answer it got, as it was sent then.
        (.repeated(.granted(unlockSeconds: 4, user: "dana")), 200, "{\"decision\":\"granted\",\"unlock_seconds\":4,\"user\":\"dana\"}"),
        (.repeated(.lockedOut), 200, "{\"decision\":\"denied\",\"message\":\"Locked out\"}"),
        (.refused(.malformed, reason: "body larger than 16384 bytes"), 400, "{\"error\":\"body larger than 16384 bytes\"}"),
        (.refused(.unauthenticated, reason: "no signature"), 401, "{\"error\":\"no signature\"}"),
        (.refused(.replayed, reason: "webhook-id was already used (replay)"), 409, "{\"error\":\"webhook-id was already used (replay)\"}"),
        (.secondFactorRequired, 200, "{\"decision\":\"denied\",\"reason\":\"second_factor_required\"}"),
        (.throttled, 429, "{\"error\":\"too many rejected requests; try again later\"}"),
        (.unavailable, 503, "{\"error\":\"verifier unavailable\"}"),
    ])
    func everyDecisionHasItsContractStatus(decision: VerifierDecision, status: Int, body: String) {
        let reply = HTTPReply(decision)
        #expect(reply.status == status)
        #expect(String(decoding: reply.body, as: UTF8.self) == body)
    }

    @Test func anAnswerBodyIsWhatTheTerminalDecodes() throws {
        let reply = HTTPReply(.granted(unlockSeconds: 7))
        #expect(try VerificationResponseBody.decode(reply.body) == .granted(message: nil, unlockSeconds: 7))
        #expect(try VerificationResponseBody.decode(HTTPReply(.denied()).body) == .denied(message: nil))
    }
}
