import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import KioskPadAccess
import KioskPadCore
import SiteCore
import Testing
import VerifierTestSupport

/// A user's edit page on both stores: "add a card at this door" arms the door, a card read
/// there (decided by the reference verifier over the same store) is learned and the page says
/// so; a card read at a door not armed waits in the unknown list and is given from the page;
/// each change audited with the administrator; never a card number on a page.
@Suite("Site console: cards learned at a door", .serialized)
struct ConsoleCardLearningTests {
    let api = ManagementAPITests()

    func card(_ value: String, at door: String, secret: WebhookSecret, now: Date) -> ReferenceVerifier.Incoming {
        SignedAttempt.incoming("card", value, at: door, secret: secret, now: now)
    }

    @Test("A card held to an armed door's reader is learned, and an unknown one is given from the page", arguments: StoreUnderTest.Kind.allCases)
    func learnAndClaim(kind: StoreUnderTest.Kind) async throws {
        try await ConsoleHarness.withConsole(kind) { harness, client in
            try await api.addUsers(harness, ["ana"])
            let secret = WebhookSecret.generate()
            let clock = harness.clock
            let reference = ReferenceVerifier(settings: ReferenceVerifier.Settings(secret: secret), store: harness.under.store, clock: { clock.now })
            let browser = Browser(client)
            try await browser.logIn()
            let csrf = try await browser.csrf()
            let bad = try await browser.post("/console/users/learn-card", [("csrf", csrf), ("name", "ana"), ("door", "front door")])
            #expect(
                bad.status == .badRequest && String(buffer: bad.body).contains("door: &#39;front door&#39; is not a door id"), "\(String(buffer: bad.body))")
            let armed = try await browser.post("/console/users/learn-card", [("csrf", csrf), ("name", "ana"), ("door", "front-door")])
            #expect(armed.status == .ok && String(buffer: armed.body).contains("front-door is armed until"))
            #expect(await reference.handle(card("10048576", at: "front-door", secret: secret, now: clock.now)) == .cardEnrolled)
            let page = String(buffer: try await browser.get("/console/users/edit?name=ana").body)
            #expect(page.contains("<td class=\"state\">learned</td>"), "\(page)")
            // Not armed now: the next unknown card is listed, and given to ana from her page.
            #expect(await reference.handle(card("20097152", at: "side-door", secret: secret, now: clock.now)) == .denied())
            let listed = String(buffer: try await browser.get("/console/users/edit?name=ana").body)
            let id = try #require(listed.firstMatch(of: /data-unknown="(\d+)"><td>side-door<\/td>/)?.1)
            #expect(!listed.contains("20097152") && !listed.contains("10048576"), "never a card number")
            let given = try await browser.post("/console/users/claim-card", [("csrf", csrf), ("name", "ana"), ("id", String(id))])
            #expect(given.status == .ok && String(buffer: given.body).contains("The card is now ana&#39;s."), "\(String(buffer: given.body))")
            #expect(await reference.handle(card("20097152", at: "side-door", secret: secret, now: clock.now)) == .granted(user: "ana"))
            let again = try await browser.post("/console/users/claim-card", [("csrf", csrf), ("name", "ana"), ("id", String(id))])
            #expect(again.status == .notFound)
            let records = try await harness.under.auditRecords().filter { ["card_learn_arm", "card_claim"].contains($0["action"] ?? "") }
            #expect(records.compactMap { $0["action"] } == ["card_learn_arm", "card_claim"] && records.allSatisfy { $0["admin"] == "alice" })
        }
    }
}
