import KioskPadAccess
import KioskPadCore
import Testing

/// Lookup tags (`server.lookup_key_*`): an attempt hashes only the lines tagged for its
/// value, plus lines without a tag of this key.
@Suite("Users file lookup tags")
struct LookupTagTests {
    static let key = try! LookupKey(text: "h6Vq3yN0cQk2mS8tW1xZ4bE7rU9pL5aD\n")

    func digits(_ text: String) -> SecretDigits { SecretDigits(ascii: text)! }

    func line(_ name: String, pin: String, tagOf tagged: String? = nil, key: LookupKey = LookupTagTests.key, suffix: String = "") throws -> String {
        let hash = try PINHash.make(pin: digits(pin), iterations: 1_000)
        let tag = tagged.map { ":tag=" + key.tag(digits($0), kind: suffix == ":card" ? .card : .pin) } ?? ""
        return "\(name):\(hash)\(suffix)\(tag)\n"
    }

    @Test func onlyLinesTaggedForTheValueAreChecked() throws {
        // bob's hash is of 2580 but his tag is of 1111: with the key he is never a candidate
        // for 2580, which proves the tag (not a scan of every hash) picks the lines.
        let users = try UsersFile(parsing: line("ana", pin: "2580", tagOf: "2580") + line("bob", pin: "2580", tagOf: "1111"), source: "users")
        #expect(users.match(digits("2580"), kind: .pin, lookup: LookupTagTests.key)?.name == "ana")
        let reordered = try UsersFile(parsing: line("bob", pin: "2580", tagOf: "1111") + line("ana", pin: "2580", tagOf: "2580"), source: "users")
        #expect(reordered.match(digits("2580"), kind: .pin, lookup: LookupTagTests.key)?.name == "ana")
        #expect(reordered.match(digits("2580"), kind: .pin)?.name == "bob")  // without the key: every line, first match
        #expect(users.match(digits("1111"), kind: .pin, lookup: LookupTagTests.key) == nil)
    }

    @Test func aCodesTagIsItsOwnAndTheKeysAlone() throws {
        let key = LookupTagTests.key
        let code = key.codeTag(digits("48213907"))
        #expect(LookupKey.isTag(Substring(code)) && LookupKey.keyID(ofTag: code) == key.id)
        #expect(code == key.codeTag(digits("48213907")))
        #expect(code != key.codeTag(digits("48213908")))
        // The same digits as a PIN or a card: another tag, so a code never finds a PIN line.
        #expect(code != key.tag(digits("48213907"), kind: .pin) && code != key.tag(digits("48213907"), kind: .card))
        #expect(code != (try LookupKey(text: String(repeating: "k", count: 40))).codeTag(digits("48213907")))
    }

    @Test func untaggedLinesAndLinesOfAnotherKeyAreStillChecked() throws {
        let old = try LookupKey(text: String(repeating: "k", count: 40))
        #expect(old.id != LookupTagTests.key.id)
        let users = try UsersFile(
            parsing: line("ana", pin: "2580") + line("bob", pin: "1397", tagOf: "1397", key: old) + line("cai", pin: "4826", tagOf: "4826"), source: "users")
        #expect(users.match(digits("2580"), kind: .pin, lookup: LookupTagTests.key)?.name == "ana")
        #expect(users.match(digits("1397"), kind: .pin, lookup: LookupTagTests.key)?.name == "bob")
        #expect(users.match(digits("4826"), kind: .pin, lookup: LookupTagTests.key)?.name == "cai")
        #expect(users.match(digits("9999"), kind: .pin, lookup: LookupTagTests.key) == nil)
    }

    @Test func cardsAndPINsOfTheSameDigitsHaveDifferentTags() throws {
        let key = LookupTagTests.key
        #expect(key.tag(digits("00065537"), kind: .card) != key.tag(digits("00065537"), kind: .pin))
        #expect(key.tag(digits("2580"), kind: .pin) == key.tag(digits("2580"), kind: .pin))
        #expect(key.tag(digits("2580"), kind: .pin) != key.tag(digits("2581"), kind: .pin))
        let users = try UsersFile(parsing: line("ana", pin: "00065537", tagOf: "00065537", suffix: ":card"), source: "users")
        #expect(users.match(digits("00065537"), kind: .card, lookup: key)?.name == "ana")
        #expect(users.match(digits("00065537"), kind: .pin, lookup: key) == nil)
    }

    @Test func badTagsAndShortKeysAreClearErrors() throws {
        let hash = try PINHash.make(pin: digits("2580"), iterations: 1_000)
        #expect(throws: UsersFile.ParseError.self) { try UsersFile(parsing: "ana:\(hash):tag=1234\n", source: "users") }
        let error = #expect(throws: UsersFile.ParseError.self) { try UsersFile(parsing: "ana:\(hash):tag=zz\n", source: "users") }
        #expect(error?.description.contains("users line 1: user 'ana': tag= must be 8 hex digits") == true)
        #expect(throws: LookupKey.KeyError.self) { try LookupKey(text: "short") }
        #expect(LookupTagTests.key.tag(digits("2580"), kind: .pin).hasPrefix(LookupTagTests.key.id + "."))
    }
}
