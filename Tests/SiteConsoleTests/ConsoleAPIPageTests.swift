import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SiteCore
import Testing
import VerifierTestSupport

/// The console's API page on both stores: a token made with its scopes and shown once, listed
/// with its last use, revoked; a webhook added with its secret shown once, a refused URL named,
/// a failed delivery listed and sent again; each change audited with the administrator.
@Suite("Site console: the API page", .serialized)
struct ConsoleAPIPageTests {
    @Test("Tokens: made with scopes, shown once, listed, revoked; audited with the administrator", arguments: StoreUnderTest.Kind.allCases)
    func tokens(kind: StoreUnderTest.Kind) async throws {
        try await ConsoleHarness.withConsole(kind) { harness, client in
            let browser = Browser(client)
            try await browser.logIn()
            let csrf = try await browser.csrf()
            let made = try await browser.post("/console/api/tokens", [("csrf", csrf), ("name", "hr-sync"), ("scope_users", "yes"), ("expires_days", "30")])
            let page = String(buffer: made.body)
            let secret = try #require(page.firstMatch(of: /kpt_[A-Za-z0-9_-]{43}/).map { String($0.output) })
            #expect(made.status == .ok && made.headers[.cacheControl] == "no-store")
            let (status, _) = try await ManagementAPITests().call(client, "/api/v1/token", token: secret)
            #expect(status == 200, "the token shown works")
            let listed = String(buffer: try await browser.get("/console/api").body)
            #expect(listed.contains("hr-sync") && listed.contains("users") && !listed.contains(secret), "listed, never shown again")
            let none = try await browser.post("/console/api/tokens", [("csrf", csrf), ("name", "empty")])
            #expect(none.status == .badRequest && String(buffer: none.body).contains("at least one scope"))
            let twice = try await browser.post("/console/api/tokens", [("csrf", csrf), ("name", "hr-sync"), ("scope_read", "yes")])
            #expect(twice.status == .badRequest && String(buffer: twice.body).contains("exists already"))
            #expect(try await browser.post("/console/api/tokens/revoke", [("csrf", csrf), ("name", "hr-sync")]).status == .seeOther)
            #expect(try await ManagementAPITests().call(client, "/api/v1/token", token: secret).0 == 401)
            let records = try await harness.under.auditRecords().filter { $0["action"]?.hasPrefix("token_") == true }
            #expect(records.map { $0["action"] ?? "" } == ["token_create", "token_revoke"] && records.allSatisfy { $0["admin"] == "alice" })
            #expect(!records.map { "\($0)" }.joined().contains(secret))
        }
    }

    @Test("Webhooks: added with the secret shown once, a refused URL named, a failed delivery sent again", arguments: StoreUnderTest.Kind.allCases)
    func webhooks(kind: StoreUnderTest.Kind) async throws {
        try await ConsoleHarness.withConsole(kind) { harness, client in
            let browser = Browser(client)
            try await browser.logIn()
            let csrf = try await browser.csrf()
            let refused = try await browser.post("/console/api/webhooks", [("csrf", csrf), ("name", "lan"), ("url", "http://10.1.2.3/hook")])
            #expect(refused.status == .badRequest && String(buffer: refused.body).contains("URL: 10.1.2.3 is a private address"))
            let added = try await browser.post(
                "/console/api/webhooks", [("csrf", csrf), ("name", "chat"), ("url", "https://chat.example/hook/T0/SECRETPATH"), ("event_door.alert", "yes")])
            #expect(added.status == .ok && String(buffer: added.body).contains("whsec_"))
            let listing = String(buffer: try await browser.get("/console/api").body)
            #expect(listing.contains("https://chat.example/…") && !listing.contains("SECRETPATH"), "the URL's path is shown only when added")
            let hooks = harness.under.webhooks
            #expect(try await hooks.webhooks().first?.subscription.events == [.doorAlert])
            _ = try await harness.under.store.storeEvents([
                DoorEvent(id: "f1", terminalID: "front", type: "forced_open", time: harness.clock.now, sequence: 1, json: "{\"type\":\"forced_open\"}")
            ])
            let delivery = try #require(try await hooks.deliveries(subscription: "chat", state: .pending, limit: 1).first)
            try await hooks.finishTry(id: delivery.id, outcome: .givenUp(error: "HTTP 503"), now: harness.clock.now)
            let page = String(buffer: try await browser.get("/console/api").body)
            #expect(page.contains("HTTP 503") && page.contains(">Send again</button>") && !page.contains("whsec_"))
            #expect(try await browser.post("/console/api/webhooks/resend", [("csrf", csrf), ("id", String(delivery.id))]).status == .seeOther)
            #expect(try await hooks.deliveries(subscription: "chat", state: .pending, limit: 5).map(\.id) == [delivery.id])
            let again = try await browser.post("/console/api/webhooks/resend", [("csrf", csrf), ("id", String(delivery.id))])
            #expect(again.status == .notFound, "it is pending again, not failed")
            // Disabled by the site (its receiver failed too long): shown so, with "Enable";
            // enabled, it is sending again; a second press is refused by name.
            #expect(try await browser.post("/console/api/webhooks/enable", [("csrf", csrf), ("name", "chat")]).status == .notFound)
            #expect(try await hooks.noteFailure(subscription: "chat", now: Date(), disableIfFailingSince: Date().addingTimeInterval(60)))
            let disabled = String(buffer: try await browser.get("/console/api").body)
            #expect(disabled.contains("disabled since ") && disabled.contains(">Enable</button>"), "\(disabled)")
            #expect(try await browser.post("/console/api/webhooks/enable", [("csrf", csrf), ("name", "chat")]).status == .seeOther)
            let enabled = String(buffer: try await browser.get("/console/api?done=enabled").body)
            #expect(enabled.contains("Webhook enabled") && !enabled.contains(">Enable</button>") && enabled.contains("<td>sending</td>"))
            #expect(try await hooks.webhooks().first?.subscription.disabled == nil)
            #expect(try await browser.post("/console/api/webhooks/remove", [("csrf", csrf), ("name", "chat")]).status == .seeOther)
            let actions = try await harness.under.auditRecords().compactMap { $0["action"] }.filter { $0.hasPrefix("webhook_") }
            #expect(actions == ["webhook_add", "webhook_resend", "webhook_enable", "webhook_remove"], "\(actions)")
            #expect(try await harness.under.auditRecords().filter { $0["action"] == "webhook_enable" }.allSatisfy { $0["admin"] == "alice" })
        }
    }
}
