import Foundation
import KioskPadAccess
import KioskPadCore
import Testing

/// The door protocol's one parser: parsers disagree on which copy of a repeated key wins, so
/// both sides refuse such JSON, and anything outside JSON's grammar.
@Suite("Strict JSON: one pass, no repeated key, JSON's grammar")
struct StrictJSONTests {
    func problem(_ text: String) -> StrictJSON.Problem? {
        if case .failure(let problem) = StrictJSON.parse(Array(text.utf8)) { return problem }
        return nil
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

    /// What the parsers it replaced refused, it refuses: numbers and literals outside the
    /// grammar, text after the value, raw control characters, bad UTF-8, a lone surrogate.
    @Test(arguments: [
        "01", "1.", ".5", "-", "1e", "+1", "0x10", "tru", "nul", "True", "NaN", "{\"a\":1}x", "\"a\u{0A}b\"",
        "\"\\ud800\"", "'a'", "",
    ])
    func textOutsideTheGrammarIsRefused(text: String) {
        #expect(problem(text) == .unreadable, "\(text)")
        #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) == nil, "Foundation refuses \(text) too")
    }

    /// A trailing comma, which Foundation's reader lets through, is not JSON (RFC 8259).
    @Test func aTrailingCommaIsRefused() {
        #expect(problem("[1,]") == .unreadable)
        #expect(problem(#"{"a":1,}"#) == .unreadable)
    }

    @Test func invalidUTF8IsRefused() {
        #expect(StrictJSON.parse([0x22, 0xC3, 0x28, 0x22]) == .failure(.unreadable))
        #expect(StrictJSON.parse([0x22, 0xC3, 0xA9, 0x22]) == .success(.string([0xC3, 0xA9])))
    }

    /// What it reads, it reads as Foundation does: every value of a mixed document.
    @Test func valuesAreReadAsTheyWereSent() throws {
        let text = #" {"s":"a\"b\\c\/d\u00e9\ud83d\ude00\n","n":-12.5e+3,"z":0,"t":true,"f":false,"x":null,"a":[1,{"k":"v"}]} "#
        let value = try StrictJSON.parse(Array(text.utf8)).get()
        let fields = try #require(StrictJSON.Fields(value))
        #expect(fields.object.keys == ["s", "n", "z", "t", "f", "x", "a"], "members in the order sent")
        let foundation = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(fields.string("s") == foundation["s"] as? String)
        #expect(fields.object["n"] == .number("-12.5e+3"))
        #expect(fields.integer("z") == 0 && fields.integer("n") == -12_500, "a whole number, also with a zero fraction (JSON Schema's integer)")
        let fractions = try #require(StrictJSON.Fields(try StrictJSON.parse(Array(#"{"a":165.0,"b":1.5,"c":"1","d":1e300}"#.utf8)).get()))
        #expect(fractions.integer("a") == 165 && fractions.integer("b") == nil && fractions.integer("c") == nil && fractions.integer("d") == nil)
        #expect(fields.bool("t") == true && fields.bool("f") == false && fields.integer("t") == nil, "a boolean is not a number")
        #expect(fields.has("x") == false && fields.has("t") && fields.has("missing") == false, "null counts as absent")
        #expect(fields.unknownKey(allowed: ["s", "n", "z", "t", "f", "x"]) == "a")
        #expect(value.sortedJSON == #"{"a":[1,{"k":"v"}],"f":false,"n":-12.5e+3,"s":"a\"b\\c/d\#u{e9}\#u{1F600}\u000a","t":true,"x":null,"z":0}"#)
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
