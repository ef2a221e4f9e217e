import Foundation
import KioskPadAccess
import KioskPadCore
import Testing

/// Cards from a Wiegand reader: `:card` lines in the users file, matched only by attempts of
/// kind `card`, and `kind: "card"` on the wire.
@Suite("Cards")
struct CardTests {
    static let pin = try! PINHash.make(pin: SecretDigits(ascii: "2468")!, iterations: 1000)
    static let card = try! PINHash.make(pin: SecretDigits(ascii: "00065537")!, iterations: 1000)
    static let spare = try! PINHash.make(pin: SecretDigits(ascii: "00000042")!, iterations: 1000)

    func attempt(_ kind: AttemptKind, _ value: String) -> VerificationAttempt {
        VerificationAttempt(terminalID: "t", kind: kind, value: SecretDigits(ascii: value)!)
    }

    @Test func aCardLineGrantsOnlyAsACardAndAPINLineOnlyAsAPIN() async throws {
        let users = try UsersFile(parsing: "ana:\(Self.pin)\nana:\(Self.card):card\nana:\(Self.spare):card\n", source: "users")
        let verifier = LocalVerifier(users: users)
        #expect(await verifier.verify(attempt(.card, "00065537")) == .granted(user: "ana"))
        #expect(await verifier.verify(attempt(.card, "00000042")) == .granted(user: "ana"), "a second card of the same user")
        #expect(await verifier.verify(attempt(.pin, "2468")) == .granted(user: "ana"))
        // The same digits in the wrong kind never match.
        let hashedPINAsCard = try UsersFile(parsing: "bo:\(try PINHash.make(pin: SecretDigits(ascii: "00065537")!, iterations: 1000))\n", source: "users")
        #expect(await LocalVerifier(users: hashedPINAsCard).verify(attempt(.card, "00065537")) == .denied())
        #expect(await verifier.verify(attempt(.pin, "00065537")) == .denied())
        #expect(await verifier.verify(attempt(.card, "00000001")) == .denied())
    }

    @Test func aCardLineTakesNoDuressOrTOTP() {
        for text in ["ana:\(Self.card):card:duress", "ana:\(Self.card):card:totp=JBSWY3DPEHPK3PXPJBSWY3DP"] {
            #expect(throws: UsersFile.ParseError.self) { try UsersFile(parsing: text, source: "users") }
        }
    }

    @Test func theWireCarriesKindCardAndTheServerSideReadsIt() throws {
        let request = VerificationRequestBody.encode(attempt(.card, "00065537"))
        let text = String(decoding: request, as: UTF8.self)
        #expect(text.contains(#""kind":"card""#), "\(text)")
        let decoded = try VerificationRequestBody.decode(request)
        #expect(decoded.kind == .card)
        #expect(throws: VerificationRequestBody.Invalid.self) {
            try VerificationRequestBody.decode(Array(#"{"terminal_id":"t","kind":"badge","value":"1234","attempt_id":"a"}"#.utf8))
        }
    }
}
