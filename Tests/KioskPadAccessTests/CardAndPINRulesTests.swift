import Foundation
import KioskPadAccess
import KioskPadCore
import Testing

/// Card-and-PIN doors in the users file and the evaluator, and the local verifier deciding
/// them: the same rule a door's replica and the site server decide by.
@Suite("Card and PIN in the evaluator, the users file and the local verifier")
struct CardAndPINRulesTests {
    static let anaPIN = try! PINHash.make(pin: SecretDigits(ascii: "2468")!, iterations: 1000)
    static let anaDuress = try! PINHash.make(pin: SecretDigits(ascii: "8642")!, iterations: 1000)
    static let anaCard = try! PINHash.make(pin: SecretDigits(ascii: "00123456")!, iterations: 1000)
    static let benPIN = try! PINHash.make(pin: SecretDigits(ascii: "1357")!, iterations: 1000)
    static let benCard = try! PINHash.make(pin: SecretDigits(ascii: "00654321")!, iterations: 1000)

    static let text = """
        ana:\(anaPIN)
        ana:\(anaDuress):duress
        ana:\(anaCard):card
        ben:\(benPIN)
        ben:\(benCard):card
        @time_zone UTC
        @schedule nights daily 20:00-24:00
        @holiday 2026-12-25 Christmas Day
        @card_pin vault
        @card_pin lobby schedule=nights

        """

    /// Thursday 2026-12-24 at `hour`:00 UTC.
    func christmasEve(_ hour: Int) -> Date {
        Date(timeIntervalSince1970: 1_798_070_400 + Double(hour * 3600))
    }

    func attempt(_ door: String, _ kind: AttemptKind, _ value: String, pin: String? = nil) -> VerificationAttempt {
        VerificationAttempt(terminalID: door, kind: kind, value: SecretDigits(ascii: value)!, pin: pin.map { SecretDigits(ascii: $0)! })
    }

    @Test func cardAndPINLinesRoundTripThroughTheFileText() throws {
        let file = try UsersFile(parsing: Self.text, source: "users")
        #expect(file.site.cardAndPIN == ["vault": CardAndPINRule(), "lobby": CardAndPINRule(schedule: "nights")])
        #expect(file.site.requires.map(\.rawValue) == ["holidays", "card_pin"])
        let again = try UsersFile(parsing: UsersFile.text(for: file.users, site: file.site, header: "test"), source: "again")
        #expect(again == file)
        #expect(CardAndPINRule(rule: "schedule=nights") == CardAndPINRule(schedule: "nights"))
        #expect(CardAndPINRule(rule: "always") == CardAndPINRule())
        #expect(CardAndPINRule(rule: "schedule=") == nil)
        #expect(CardAndPINRule(rule: "sometimes") == nil)
    }

    @Test(arguments: [
        ("@card_pin", "line 1: write \(CardAndPINRule.grammar); DOOR is a terminal_id (1-64 of letters, digits, '.', '_' or '-')"),
        ("@card_pin vault nights", "line 1: 'nights' is not schedule=NAME; write \(CardAndPINRule.grammar)"),
        ("@card_pin vault schedule=nights", "line 1: @card_pin vault: schedule 'nights' is not defined here (add a line @schedule nights SPEC)"),
        ("@card_pin vault\n@card_pin vault", "line 2: @card_pin vault is given twice"),
    ])
    func aBadCardAndPINLineNamesTheLineAndWhatIsValid(_ line: String, _ message: String) {
        #expect {
            try UsersFile(parsing: line + "\n", source: "users")
        } throws: { ($0 as? UsersFile.ParseError)?.description == "users \(message)" }
    }

    @Test func aScheduledRuleAsksForBothInItsWindowsOnAHolidayAndWithoutATrustedClock() throws {
        let rules = try CompiledSiteRules(try UsersFile(parsing: Self.text, source: "users").site)
        #expect(rules.secondFactorRequired(door: "vault", at: christmasEve(9)))
        #expect(rules.secondFactorRequired(door: "vault", at: nil))
        #expect(!rules.secondFactorRequired(door: "front", at: christmasEve(9)))
        // The lobby: in the nights window only ...
        #expect(!rules.secondFactorRequired(door: "lobby", at: christmasEve(9)))
        #expect(rules.secondFactorRequired(door: "lobby", at: christmasEve(21)))
        // ... all day on Christmas Day, and whenever the clock is not trusted.
        #expect(rules.secondFactorRequired(door: "lobby", at: christmasEve(24 + 9)))
        #expect(rules.secondFactorRequired(door: "lobby", at: nil))
        // A rule naming a schedule the door does not know asks for both.
        #expect(AccessEvaluator.secondFactorRequired(CardAndPINRule(schedule: "gone"), schedule: nil, now: SiteTime(christmasEve(9), in: .gmt)))
        #expect(!AccessEvaluator.secondFactorRequired(nil, schedule: nil, now: nil))
    }

    @Test func aCardAndPINDoorRefusesOneFactorAndAdmitsTheCardWithItsHoldersOwnPIN() async throws {
        let file = try UsersFile(parsing: Self.text, source: "users")
        let verifier = LocalVerifier(users: file, clock: { self.christmasEve(9) })
        let second = AttemptOutcome.denied(reason: .secondFactorRequired)
        #expect(await verifier.verify(attempt("vault", .card, "00123456")) == second)
        #expect(await verifier.verify(attempt("vault", .pin, "2468")) == second)
        #expect(await verifier.verify(attempt("vault", .code, "246813")) == second)
        // An unknown card is refused as one factor too: the answer tells nothing about it.
        #expect(await verifier.verify(attempt("vault", .card, "00999999")) == second)
        #expect(await verifier.verify(attempt("vault", .cardPIN, "00123456", pin: "2468")) == .granted(user: "ana"))
        #expect(await verifier.verify(attempt("vault", .cardPIN, "00123456", pin: "8642")) == .granted(user: "ana", duress: true))
        // Ana's card with Ben's PIN, Ben's card with Ana's PIN, an unknown card: no match.
        #expect(await verifier.verify(attempt("vault", .cardPIN, "00123456", pin: "1357")) == .denied())
        #expect(await verifier.verify(attempt("vault", .cardPIN, "00654321", pin: "2468")) == .denied())
        #expect(await verifier.verify(attempt("vault", .cardPIN, "00999999", pin: "2468")) == .denied())
        // Elsewhere one factor opens, and so does a card with its PIN.
        #expect(await verifier.verify(attempt("front", .card, "00654321")) == .granted(user: "ben"))
        #expect(await verifier.verify(attempt("front", .cardPIN, "00654321", pin: "1357")) == .granted(user: "ben"))
        // The lobby at 09:00 takes a card alone; at 21:00 it does not.
        #expect(await verifier.verify(attempt("lobby", .card, "00654321")) == .granted(user: "ben"))
        let night = LocalVerifier(users: file, clock: { self.christmasEve(21) })
        #expect(await night.verify(attempt("lobby", .card, "00654321")) == second)
        // Without a trusted clock the lobby asks for both.
        let untrusted = LocalVerifier(users: file, clock: { self.christmasEve(9) }, clockTrusted: { false })
        #expect(await untrusted.verify(attempt("lobby", .card, "00654321")) == second)
        #expect(await untrusted.verify(attempt("lobby", .cardPIN, "00654321", pin: "1357")) == .granted(user: "ben"))
    }

    @Test func theCardAndItsHoldersPINAreMatchedWithLookupTagsToo() throws {
        let key = try LookupKey(text: String(repeating: "c", count: 40))
        let tag = { (value: String, kind: AttemptKind) in key.tag(SecretDigits(ascii: value)!, kind: kind) }
        let file = UsersFile(users: [
            UserRecord(name: "ana", pinHash: Self.anaPIN, lookupTag: tag("2468", .pin)),
            UserRecord(name: "ana", pinHash: Self.anaCard, card: true, lookupTag: tag("00123456", .card)),
            UserRecord(name: "ben", pinHash: Self.benPIN, lookupTag: tag("1357", .pin)),
        ])
        let card = SecretDigits(ascii: "00123456")!
        let tagged = (tag: key.tag(card, kind: .card), keyID: key.id)
        #expect(file.match(card: card, pin: SecretDigits(ascii: "2468")!, tagged: tagged)?.name == "ana")
        #expect(file.match(card: card, pin: SecretDigits(ascii: "1357")!, tagged: tagged) == nil)
    }
}
