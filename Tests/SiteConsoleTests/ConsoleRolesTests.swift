import Foundation
import HTTPTypes
import HummingbirdTesting
import KioskPadAccess
import SiteCore
import Testing
import VerifierTestSupport

/// The console as each role sees it: a host lands on Visitors, sees only the passes they host
/// and issues passes only as their host; the navigation shows only the pages a role may open;
/// a role changed while a session is open holds from its next request.
@Suite("Site console: roles", .serialized)
struct ConsoleRolesTests {
    let api = ManagementAPITests()

    @Test("A host sees and issues only the passes they host, and a changed role holds at the next request", arguments: StoreUnderTest.Kind.allCases)
    func aHostIsLimitedToTheirOwnPasses(kind: StoreUnderTest.Kind) async throws {
        try await ConsoleHarness.withConsole(kind) { harness, client in
            try await api.addUsers(harness, ["hana", "ben"])
            let until = VisitorPassConsoleTests.later(harness, hours: 4)
            let pass = { (csrf: String, host: String, visitor: String) in
                [("csrf", csrf), ("visitor", visitor), ("host", host), ("doors", "front-door"), ("until", until), ("uses", "1")]
            }
            let owner = Browser(client)
            try await owner.logIn()
            #expect(try await owner.post("/console/visitors", pass(try await owner.csrf(), "ben", "Ben's Guest")).status == .ok)

            #expect(
                try await harness.under.console.addAdmin(
                    name: "hana", hash: try PINHash.make(password: Array(ConsoleHarness.password.utf8), iterations: 1_000), role: .host))
            let hana = Browser(client)
            let login = try await hana.logIn("hana")
            #expect(login.headers[.location] == "/console/visitors", "a host lands where they may be")
            let page = String(buffer: try await hana.get("/console/visitors").body)
            #expect(!page.contains("Ben&#39;s Guest") && !page.contains("Ben's Guest"), "another host's pass is not shown")
            #expect(page.contains("href=\"/console/visitors\"") && !page.contains("href=\"/console/users\""), "the navigation shows what a host may open")
            let csrf = Browser.field("csrf", in: page) ?? ""
            let forBen = try await hana.post("/console/visitors", pass(csrf, "ben", "Sneaky"))
            #expect(forBen.status == .badRequest && String(buffer: forBen.body).contains("issues and revokes only passes they host"))
            let own = try await hana.post("/console/visitors", pass(csrf, "hana", "Hana's Guest"))
            #expect(own.status == .ok, "\(String(buffer: own.body).prefix(300))")
            let passes = try await harness.under.administration.visitorPasses(since: .distantPast).passes
            #expect(passes.map(\.host).sorted() == ["ben", "hana"], "nothing issued for ben by hana")
            let theirs = try #require(passes.first { $0.host == "ben" })
            let revoke = try await hana.post("/console/visitors/revoke", [("csrf", csrf), ("id", String(theirs.id))])
            #expect(revoke.status == .notFound && String(buffer: revoke.body).contains("only passes they host"), "\(revoke.status)")
            #expect(try await harness.under.administration.visitorPass(id: theirs.id)?.pass.revoked == nil, "ben's pass stands")
            #expect(try await hana.get("/console/users").status == .forbidden)

            // Made an auditor while signed in: the next request reads users, and issues nothing.
            #expect(try await harness.under.console.setAdminRole(name: "hana", role: .auditor))
            #expect(try await hana.get("/console/users").status == .ok)
            #expect(try await hana.post("/console/visitors", pass(csrf, "hana", "Another")).status == .forbidden)
        }
    }
}
