import KioskPadAccess
import KioskPadCore
import Testing

/// A duress PIN: a second users-file line for the same user ending in `:duress`, or a
/// verifier answer with `"duress": true`. It grants like any PIN and is marked as duress.
@Suite("Duress PIN")
struct DuressTests {
    static let normal = try! PINHash.make(pin: SecretDigits(ascii: "2468")!, iterations: 1000)
    static let duress = try! PINHash.make(pin: SecretDigits(ascii: "2469")!, iterations: 1000)

    func attempt(_ pin: String) -> VerificationAttempt {
        VerificationAttempt(terminalID: "t", kind: .pin, value: SecretDigits(ascii: pin)!)
    }

    @Test func theDuressLineGrantsTheSameUserWithDuressAndTheNormalLineWithout() async throws {
        let users = try UsersFile(parsing: "ana:\(Self.normal)\nana:\(Self.duress):duress\n", source: "users")
        let verifier = LocalVerifier(users: users)
        let plain = await verifier.verify(attempt("2468"))
        let forced = await verifier.verify(attempt("2469"))
        #expect(plain == .granted(user: "ana") && !plain.isDuress)
        #expect(forced == .granted(user: "ana", duress: true) && forced.isDuress)
        #expect(await verifier.verify(attempt("1111")) == .denied())
    }

    @Test(arguments: [
        ("ana:H:duress\nana:D:duress", "has two duress lines"),
        ("ana:H\nana:H", "is listed twice"),
        ("ana:D:duress:totp=JBSWY3DPEHPK3PXPJBSWY3DP", "a duress line holds only a PIN"),
        ("ana:H:dures", "valid: totp=BASE32SECRET (at least 16 base32 characters), duress or card"),
    ])
    func badDuressLinesNameTheLineAndTheFix(text: String, message: String) {
        let filled = text.replacingOccurrences(of: ":H", with: ":\(Self.normal)").replacingOccurrences(of: ":D", with: ":\(Self.duress)")
        do {
            _ = try UsersFile(parsing: filled, source: "users")
            Issue.record("accepted: \(text)")
        } catch let error as UsersFile.ParseError {
            #expect(error.line == 2 || error.line == 1)
            #expect(error.description.contains(message), "\(error)")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func theAnswerCarriesDuressOnGrantsOnly() throws {
        let body = VerificationResponseBody.encode(granted: true, user: "ana", duress: true)
        #expect(String(decoding: body, as: UTF8.self) == #"{"decision":"granted","user":"ana","duress":true}"#)
        #expect(try VerificationResponseBody.decode(body) == .granted(user: "ana", duress: true))
        #expect(String(decoding: VerificationResponseBody.encode(granted: false, duress: true), as: UTF8.self) == #"{"decision":"denied"}"#)
        #expect(try VerificationResponseBody.decode(Array(#"{"decision":"granted","duress":false}"#.utf8)) == .granted())
        #expect(throws: VerificationResponseBody.Invalid.self) {
            try VerificationResponseBody.decode(Array(#"{"decision":"denied","duress":true}"#.utf8))
        }
        #expect(throws: VerificationResponseBody.Invalid.self) {
            try VerificationResponseBody.decode(Array(#"{"decision":"granted","duress":"yes"}"#.utf8))
        }
    }
}
