import Foundation
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import SiteCore
import Testing
import VerifierTestSupport

/// Card-and-PIN doors decided by the server over each real store (the site's clock
/// injected: Friday 2027-01-15 08:00 UTC, never slept).
extension AccessDecisionTests {
    /// alice (PIN 2580, card 00112233) and bob (PIN 1470, duress PIN 1471, card 00445566).
    func cardStore(_ kind: StoreUnderTest.Kind) async throws -> StoreUnderTest {
        let hash = { (value: String) in try PINHash.make(pin: SecretDigits(ascii: value)!, iterations: 1_000) }
        let text = """
            alice:\(try hash("2580"))
            alice:\(try hash("00112233")):card
            bob:\(try hash("1470"))
            bob:\(try hash("1471")):duress
            bob:\(try hash("00445566")):card

            """
        let store = try await StoreUnderTest.make(kind, users: try UsersFile(parsing: text, source: "users"))
        try await store.administration.setTimeZone("UTC")
        return store
    }

    /// A signed `card_pin` attempt: the card in `value`, the PIN in `pin`.
    func cardAndPIN(_ card: String, _ pin: String, at door: String) -> ReferenceVerifier.Incoming {
        let id = UUID().uuidString
        let body = Array(
            """
            {"terminal_id":"\(door)","kind":"card_pin","value":"\(card)","pin":"\(pin)","attempt_id":"\(id)","entered_at":"2027-01-15T08:00:00Z"}
            """.utf8)
        let seconds = Int(clock.now.timeIntervalSince1970)
        return ReferenceVerifier.Incoming(
            contentType: "application/json", webhookID: id, webhookTimestamp: String(seconds),
            webhookSignature: WebhookSignature.sign(id: id, timestamp: seconds, body: body, secret: siteSecret), body: body)
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aCardAndPINDoorRefusesOneFactorAndAdmitsACardWithItsHoldersPIN(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await cardStore(kind)
        defer { Task { await store.destroy() } }
        let admin = store.administration
        let reference = verifier(store, lockout: LockoutPolicy(maxFailures: 3))
        #expect(await reference.handle(request("00112233", at: "vault", kind: "card")) == .granted(unlockSeconds: 4, user: "alice"))
        try await admin.setCardAndPIN(door: "vault", CardAndPINRule())
        // One factor: refused before any hash, not counted, audited with the reason.
        for _ in 0..<4 {
            #expect(await reference.handle(request("00112233", at: "vault", kind: "card")) == .secondFactorRequired)
            #expect(await reference.handle(request("2580", at: "vault")) == .secondFactorRequired)
            #expect(await reference.handle(request("00999999", at: "vault", kind: "card")) == .secondFactorRequired)
        }
        #expect(try await lastAttempt(store)["reason"] == "second_factor_required")
        #expect(try await lastAttempt(store)["user"] == nil, "the answer and the audit tell nothing about the card")
        #expect(await reference.handle(cardAndPIN("00112233", "2580", at: "vault")) == .granted(unlockSeconds: 4, user: "alice"))
        #expect(try await lastAttempt(store)["kind"] == "card_pin")
        #expect(await reference.handle(cardAndPIN("00445566", "1471", at: "vault")) == .granted(unlockSeconds: 4, user: "bob", duress: true))
        // Another user's PIN with the card, or an unknown card: a wrong guess, counted.
        #expect(await reference.handle(cardAndPIN("00112233", "1470", at: "vault")) == .denied())
        #expect(try await lastAttempt(store)["reason"] == "no match")
        #expect(await reference.handle(cardAndPIN("00999999", "2580", at: "vault")) == .denied())
        #expect(await reference.handle(cardAndPIN("00445566", "2580", at: "vault")) == .denied())
        #expect(await reference.handle(cardAndPIN("00112233", "2580", at: "vault")) == .lockedOut)
        // Other doors take one factor.
        #expect(await reference.handle(request("00445566", at: "front-door", kind: "card")) == .granted(unlockSeconds: 4, user: "bob"))
        // The user's own rules still apply after both factors.
        try await admin.setAccess(user: "bob") { $0.doors = ["front-door"] }
        let fresh = verifier(store)
        try await admin.setCardAndPIN(door: "side", CardAndPINRule())
        #expect(await fresh.handle(cardAndPIN("00445566", "1470", at: "side")) == .denied())
        #expect(try await lastAttempt(store)["reason"] == "not_permitted_here")
        // Removed, the door takes a card alone again (the vault stays locked out: its terminal's count).
        try await admin.removeCardAndPIN(door: "side")
        #expect(await fresh.handle(request("00112233", at: "side", kind: "card")) == .granted(unlockSeconds: 4, user: "alice"))
        await #expect(throws: UserEditError.self) { try await admin.removeCardAndPIN(door: "side") }
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aScheduledCardAndPINRuleAsksForBothInItsWindowsAndAllDayOnAHoliday(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await cardStore(kind)
        defer { Task { await store.destroy() } }
        let admin = store.administration
        try await admin.setSchedule(name: "nights", spec: "daily 20:00-24:00")
        await #expect(throws: UserEditError.self) { try await admin.setCardAndPIN(door: "lobby", CardAndPINRule(schedule: "nope")) }
        try await admin.setCardAndPIN(door: "lobby", CardAndPINRule(schedule: "nights"))
        #expect(try await admin.siteRules().cardAndPIN == ["lobby": CardAndPINRule(schedule: "nights")])
        let reference = verifier(store)
        // 08:00: a card alone opens.
        #expect(await reference.handle(request("00112233", at: "lobby", kind: "card")) == .granted(unlockSeconds: 4, user: "alice"))
        clock.advance(13 * 3600)  // 21:00
        #expect(await reference.handle(request("00112233", at: "lobby", kind: "card")) == .secondFactorRequired)
        #expect(await reference.handle(cardAndPIN("00112233", "2580", at: "lobby")) == .granted(unlockSeconds: 4, user: "alice"))
        clock.advance(12 * 3600)  // Saturday 09:00, a holiday: both, all day.
        try await admin.setHoliday(try Holiday(day: "2027-01-16", words: []))
        #expect(await reference.handle(request("00112233", at: "lobby", kind: "card")) == .secondFactorRequired)
        // The schedule cannot be removed while the rule names it.
        await #expect(throws: UserEditError.self) { try await admin.removeSchedule(name: "nights") }
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func cardAndPINLinesImportOnceAndExportAgain(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await cardStore(kind)
        defer { Task { await store.destroy() } }
        let admin = store.administration
        let file = try UsersFile(parsing: "@schedule nights daily 20:00-24:00\n@card_pin vault\n@card_pin lobby schedule=nights\n", source: "users")
        #expect(try await admin.importUsers(file) == 0)
        #expect(try await admin.siteRules().cardAndPIN == ["vault": CardAndPINRule(), "lobby": CardAndPINRule(schedule: "nights")])
        #expect(try await admin.importUsers(file) == 0, "a second import changes nothing")
        let clash = try UsersFile(parsing: "@card_pin vault schedule=nights\n@schedule nights daily 20:00-24:00\n", source: "users")
        await #expect(throws: UsersImport.Clash.self) { try await admin.importUsers(clash) }
        let site = try await admin.siteRules()
        #expect(UsersFile.text(for: [], site: site, header: "x").contains("@card_pin lobby schedule=nights\n@card_pin vault\n"))
    }
}
