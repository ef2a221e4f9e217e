import Foundation
import KioskPadAccess
import KioskPadCore
import Testing

/// Parsers disagree on which copy of a repeated key wins; both sides refuse such JSON.
@Suite("Duplicate JSON keys are malformed")
struct DuplicateKeyTests {
    func problem(_ text: String) -> DuplicateKeyCheck.Finding? {
        DuplicateKeyCheck.firstProblem(in: Array(text.utf8))
    }

    @Test func distinctKeysPass() {
        #expect(problem(#"{"decision":"granted","message":"Hi \"there\"","unlock_seconds":5}"#) == nil)
        #expect(problem(#" { "a" : [ {"b":1}, {"b":2} ], "c": {"b": null, "d": [true, false, -1.5e3]} } "#) == nil)
        #expect(problem(#"[]"#) == nil)
        #expect(problem(#"{}"#) == nil)
    }

    @Test func aRepeatedKeyIsFoundAtAnyDepthAndThroughEscapes() {
        #expect(problem(#"{"decision":"granted","decision":"denied"}"#) == .duplicate(key: "decision"))
        #expect(problem(#"{"outer":{"x":1,"x":2}}"#) == .duplicate(key: "x"))
        #expect(problem(#"[{"ok":1},{"k":1,"k":1}]"#) == .duplicate(key: "k"))
        #expect(problem(#"{"decision":"denied","d\u0065cision":"granted"}"#) == .duplicate(key: "decision"))
        #expect(problem(#"{"\ud83d\ude00":1,"😀":2}"#) == .duplicate(key: "😀"))
    }

    @Test func whatTheScannerCannotFollowIsRefusedToo() {
        #expect(problem(#"{"a":1"#) == .unreadable)
        #expect(problem(#"{"a" 1}"#) == .unreadable)
        #expect(problem(#"{"a":"\q"}"#) == .unreadable)
        #expect(problem(String(repeating: "[", count: 100) + String(repeating: "]", count: 100)) == .unreadable)
    }

    @Test func theTerminalRefusesAnAmbiguousAnswer() {
        #expect(throws: VerificationResponseBody.Invalid.self) {
            try VerificationResponseBody.decode(Array(#"{"decision":"granted","decision":"denied"}"#.utf8))
        }
        #expect(throws: VerificationResponseBody.Invalid.self) {
            try VerificationResponseBody.decode(Array(#"{"decision":"denied","unlock_seconds":5,"unlock_seconds":300}"#.utf8))
        }
        #expect((try? VerificationResponseBody.decode(Array(#"{"decision":"granted"}"#.utf8))) == .granted())
    }

    @Test func theServerRefusesAnAmbiguousRequest() {
        let body =
            #"{"terminal_id":"door-1","kind":"pin","value":"1111","value":"2468","attempt_id":"0b7c8f5e-2a41-4d8e-9f3b-6c2d1e0a9b87","entered_at":"2026-11-20T10:00:00Z"}"#
        #expect(throws: VerificationRequestBody.Invalid.self) { try VerificationRequestBody.decode(Array(body.utf8)) }
        let fine =
            #"{"terminal_id":"door-1","kind":"pin","value":"2468","attempt_id":"0b7c8f5e-2a41-4d8e-9f3b-6c2d1e0a9b87","entered_at":"2026-11-20T10:00:00Z"}"#
        #expect((try? VerificationRequestBody.decode(Array(fine.utf8)))?.terminalID == "door-1")
    }
}
