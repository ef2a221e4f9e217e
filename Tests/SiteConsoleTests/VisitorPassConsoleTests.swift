import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import KioskPadAccess
import SiteCore
import Testing
import VerifierTestSupport

/// Visitor passes from the console's Visitors page and from `/api/v1/visitor-passes` on both
/// stores: a refused pass (a host the site lacks) stores nothing and keeps the form; an issued
/// pass is shown once as a printable pass and listed without its code; revoked from either;
/// each change one audit record naming who made it.
@Suite("Site console and API: visitor passes", .serialized)
struct VisitorPassConsoleTests {
    let api = ManagementAPITests()
    let hooks = ManagementAPIWebhookTests()

    /// `hours` after the harness's clock, to the minute, in UTC (its site has no zone set: UTC).
    static func later(_ harness: ConsoleHarness, hours: Double) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm"
        return formatter.string(from: harness.clock.now.addingTimeInterval(hours * 3600))
    }

    @Test("A pass issued in the console is shown once, printable, listed without its code and revoked", arguments: StoreUnderTest.Kind.allCases)
    func visitorsPage(kind: StoreUnderTest.Kind) async throws {
        try await ConsoleHarness.withConsole(kind) { harness, client in
            try await api.addUsers(harness, ["ana"])
            try await harness.under.administration.setLevel(name: "lobby", AccessLevel(doors: ["lobby-door"]))
            let browser = Browser(client)
            try await browser.logIn()
            let csrf = try await browser.csrf()
            let until = Self.later(harness, hours: 4)
            let fields = [("csrf", csrf), ("visitor", "Ada Lovelace"), ("doors", "front-door"), ("levels", "lobby"), ("until", until), ("uses", "2")]
            let refused = try await browser.post("/console/visitors", fields + [("host", "nobody")])
            let refusedPage = String(buffer: refused.body)
            #expect(refused.status == .badRequest && refusedPage.contains("host: there is no user"), "\(refusedPage)")
            #expect(refusedPage.contains("value=\"Ada Lovelace\""), "the form keeps what was typed")
            #expect(try await harness.under.administration.visitorPasses(since: .distantPast).passes.isEmpty)
            let issued = try await browser.post("/console/visitors", fields + [("host", "ana")])
            let page = String(buffer: issued.body)
            #expect(issued.status == .ok && issued.headers[.cacheControl] == "no-store")
            let code = try #require(page.firstMatch(of: /id="code">(\d{8})</)?.1)
            #expect(page.contains("id=\"pass-visitor\">Ada Lovelace<") && page.contains("id=\"pass-host\">ana<"))
            #expect(page.contains("id=\"pass-where\">front-door; level lobby<") && page.contains("id=\"pass-uses\">2<"))
            let list = String(buffer: try await browser.get("/console/visitors").body)
            #expect(list.contains("<td>Ada Lovelace</td><td>ana</td><td>front-door; level lobby</td>") && list.contains("0 of 2"))
            #expect(!list.contains(String(code)), "the code is shown once")
            let pass = try #require(try await harness.under.administration.visitorPasses(since: .distantPast).passes.first)
            let revoked = try await browser.post("/console/visitors/revoke", [("csrf", csrf), ("id", String(pass.id))])
            #expect(revoked.status == .seeOther)
            #expect(String(buffer: try await browser.get("/console/visitors").body).contains("<td class=\"state\">revoked</td>"))
            let again = try await browser.post("/console/visitors/revoke", [("csrf", csrf), ("id", String(pass.id))])
            #expect(again.status == .notFound)
            let records = try await harness.under.auditRecords().filter { ($0["action"] ?? "").hasPrefix("visitor_pass") }
            #expect(records.compactMap { $0["action"] } == ["visitor_pass_issue", "visitor_pass_revoke"])
            #expect(records.allSatisfy { $0["admin"] == "alice" } && !records.description.contains(String(code)))
        }
    }

    @Test("The API issues a pass with the code once, lists and reads it without, and revokes it", arguments: StoreUnderTest.Kind.allCases)
    func visitorPassesThroughTheAPI(kind: StoreUnderTest.Kind) async throws {
        try await ConsoleHarness.withConsole(kind) { harness, client in
            try await api.addUsers(harness, ["ana"])
            let front = try await api.token(harness, "front-desk", [.codes])
            let reader = try await api.token(harness, "reader", [.read])
            let until = Self.later(harness, hours: 2)
            let body = #"{"visitor":"Ada Lovelace","host":"ana","doors":["front-door"],"valid_until":"\#(until)","max_uses":3}"#
            #expect(try await hooks.send(client, "/api/v1/visitor-passes", .post, body, token: reader).0 == 403)
            let (bad, why) = try await hooks.send(
                client, "/api/v1/visitor-passes", .post, body.replacingOccurrences(of: "\"ana\"", with: "\"bob\""), token: front)
            #expect(bad == 400 && (why["error"] as? String)?.hasPrefix("host: there is no user 'bob'") == true, "\(why)")
            let (tooMany, said) = try await hooks.send(client, "/api/v1/visitor-passes", .post, body.replacingOccurrences(of: ":3}", with: ":0}"), token: front)
            #expect(tooMany == 400 && (said["error"] as? String)?.hasPrefix("max_uses:") == true, "\(said)")
            let (made, pass) = try await hooks.send(client, "/api/v1/visitor-passes", .post, body, token: front)
            #expect(made == 201 && (pass["code"] as? String)?.count == 8, "\(pass)")
            #expect(pass["visitor"] as? String == "Ada Lovelace" && pass["max_uses"] as? Int == 3 && pass["uses"] as? Int == 0)
            #expect(pass["state"] as? String == "active" && pass["issued_by"] as? String == "token:front-desk" && pass["valid_until"] as? String == until)
            let id = try #require(pass["id"] as? Int)
            let (_, listed) = try await api.call(client, "/api/v1/visitor-passes", token: reader)
            let passes = try #require(listed["visitor_passes"] as? [[String: Any]])
            #expect(passes.count == 1 && passes[0]["code"] == nil && passes[0]["id"] as? Int == id)
            let (_, read) = try await api.call(client, "/api/v1/visitor-passes/\(id)", token: reader)
            #expect(read["host"] as? String == "ana" && read["code"] == nil)
            // Unlimited uses need the users scope beside codes (issue 78).
            let (limited, limitWhy) = try await hooks.send(
                client, "/api/v1/visitor-passes", .post, body.replacingOccurrences(of: ":3}", with: ":null}"), token: front)
            #expect(limited == 403 && (limitWhy["error"] as? String)?.contains("visitor_pass_max_uses") == true, "\(limitWhy)")
            let office = try await api.token(harness, "office", [.codes, .users])
            let (unlimited, open) = try await hooks.send(
                client, "/api/v1/visitor-passes", .post, body.replacingOccurrences(of: ":3}", with: ":null}"), token: office)
            #expect(unlimited == 201 && open["max_uses"] is NSNull, "\(open)")
            #expect(try await api.call(client, "/api/v1/visitor-passes/\(id)", .delete, token: front).0 == 200)
            #expect(try await api.call(client, "/api/v1/visitor-passes/\(id)", .delete, token: front).0 == 404)
            let (_, after) = try await api.call(client, "/api/v1/visitor-passes/\(id)", token: reader)
            #expect(after["state"] as? String == "revoked")
            #expect(try await api.call(client, "/api/v1/visitor-passes/999999", token: reader).0 == 404)
            let records = try await harness.under.auditRecords().filter { ($0["action"] ?? "").hasPrefix("visitor_pass") }
            #expect(records.compactMap { $0["action"] } == ["visitor_pass_issue", "visitor_pass_issue", "visitor_pass_revoke"])
            #expect(records.map { $0["admin"] } == ["token:front-desk", "token:office", "token:front-desk"])
        }
    }
}

/// A `codes` token's authority ends where its scope does (issue 78): no code for a responder
/// or staff member, no pass for a door its host may not open, nor an unlimited one; with the
/// users scope beside, each is issued.
@Suite("Management API: what a codes token may issue", .serialized)
struct TokenAuthorityAPITests {
    let api = ManagementAPITests()
    let hooks = ManagementAPIWebhookTests()

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aCodesTokenReachesOnlyOrdinaryUsersAndItsHostsDoors(_ kind: StoreUnderTest.Kind) async throws {
        try await ConsoleHarness.withConsole(kind) { harness, client in
            try await api.addUsers(harness, ["guard", "sam", "hosty", "ana"])
            try await harness.under.administration.setAccess(user: "guard") { $0.responder = true }
            try await harness.under.administration.setAccess(user: "sam") { $0.staff = true }
            try await harness.under.administration.setAccess(user: "hosty") { $0.doors = ["lobby"] }
            let codes = try await api.token(harness, "desk", [.codes])
            let office = try await api.token(harness, "office", [.codes, .users])
            for user in ["guard", "sam"] {
                for (path, body) in [("enrolment-code", #"{"hours":1}"#), ("codes", #"{"minutes":10}"#)] {
                    let (status, said) = try await hooks.send(client, "/api/v1/users/\(user)/\(path)", .post, body, token: codes)
                    #expect(status == 403 && said["scope"] as? String == "users", "\(user) \(path): \(said)")
                    #expect(try await hooks.send(client, "/api/v1/users/\(user)/\(path)", .post, body, token: office).0 == 201, "\(user) \(path)")
                }
            }
            #expect(try await hooks.send(client, "/api/v1/users/ana/enrolment-code", .post, #"{"hours":1}"#, token: codes).0 == 201)
            let until = VisitorPassConsoleTests.later(harness, hours: 2)
            let pass = { (doors: String, uses: String) in
                #"{"visitor":"Ada Lovelace","host":"hosty","doors":\#(doors),"valid_until":"\#(until)","max_uses":\#(uses)}"#
            }
            let (beyond, why) = try await hooks.send(client, "/api/v1/visitor-passes", .post, pass(#"["lobby","vault"]"#, "2"), token: codes)
            #expect(beyond == 403 && (why["error"] as? String)?.contains("may not open vault") == true, "\(why)")
            let (many, manyWhy) = try await hooks.send(client, "/api/v1/visitor-passes", .post, pass(#"["lobby"]"#, "21"), token: codes)
            #expect(many == 403 && (manyWhy["error"] as? String)?.contains("1 to 20") == true, "\(manyWhy)")
            #expect(try await hooks.send(client, "/api/v1/visitor-passes", .post, pass(#"["lobby"]"#, "2"), token: codes).0 == 201)
            #expect(try await hooks.send(client, "/api/v1/visitor-passes", .post, pass(#"["lobby","vault"]"#, "null"), token: office).0 == 201)
            let issued = try await harness.under.auditRecords().filter { $0["action"] == "visitor_pass_issue" }
            #expect(issued.count == 2, "nothing was issued for a refused request")
        }
    }
}
