import KioskPadAccess
import KioskPadCore
import Testing

/// The verifier's answer may name who was granted entry (`"user"`, optional, additive).
@Suite("Verifier answer: the user field")
struct ResponseUserTests {
    @Test func aGrantCarriesItsUserThroughEncodeAndDecode() throws {
        let body = VerificationResponseBody.encode(granted: true, unlockSeconds: 5, user: "alice")
        #expect(String(decoding: body, as: UTF8.self) == #"{"decision":"granted","unlock_seconds":5,"user":"alice"}"#)
        let outcome = try VerificationResponseBody.decode(body)
        #expect(outcome == .granted(unlockSeconds: 5, user: "alice"))
        #expect(outcome.user == "alice")
    }

    @Test func anAnswerWithoutAUserIsStillAGrant() throws {
        let outcome = try VerificationResponseBody.decode(Array(#"{"decision":"granted"}"#.utf8))
        #expect(outcome == .granted())
        #expect(outcome.user == nil)
        #expect(AttemptOutcome.denied().user == nil)
    }

    @Test(arguments: [#""""#, #""al ice""#, #""\u001b[2J""#, "\"\(String(repeating: "a", count: 65))\"", "42"])
    func aUserThatIsNotANameMakesTheAnswerInvalid(user: String) {
        // Never journaled or logged as given: the whole answer is a verifier error (door shut).
        #expect(throws: VerificationResponseBody.Invalid.self) {
            try VerificationResponseBody.decode(Array(#"{"decision":"granted","user":\#(user)}"#.utf8))
        }
    }
}
