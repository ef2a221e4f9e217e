import Foundation
import HTTPTypes
import HummingbirdTesting
import KioskPadAccess
import KioskPadCore
import KioskPadStorage
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
                    name: "hana", hash: try PINHash.make(password: Array(ConsoleHarness.password.utf8), iterations: 1_000), role: .host, doorGroups: nil))
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
            #expect(try await harness.under.console.setAdminRole(name: "hana", role: .auditor, doorGroups: nil))
            #expect(try await hana.get("/console/users").status == .ok)
            #expect(try await hana.post("/console/visitors", pass(csrf, "hana", "Another")).status == .forbidden)
        }
    }

    @Test("A guard limited to a door group sees only its doors, its doors' entries and none of the doors' secrets")
    func aGuardOfOneBuildingSeesItsDoorsOnly() async throws {
        try await ConsoleHarness.withConsole(.sqlite) { harness, client in
            let now = harness.clock.now
            var sequence = 0
            for door in ["b-front", "a-front"] {
                sequence += 1
                _ = try await harness.under.store.storeEvents([
                    DoorEvent(
                        id: "e-\(door)", terminalID: door, type: "start", time: now, sequence: sequence, json: "{\"id\":\"e-\(door)\",\"type\":\"start\"}")
                ])
                try await harness.under.store.audit([
                    ("time", UTCTimestamp.rfc3339(now, milliseconds: true)), ("decision", "granted"), ("terminal_id", door), ("user", "ana"),
                ])
            }
            try await harness.under.administration.setDoorGroup(name: "building-b", DoorGroup(doors: ["b-front"]))
            #expect(
                try await harness.under.console.addAdmin(
                    name: "gus", hash: try PINHash.make(password: Array(ConsoleHarness.password.utf8), iterations: 1_000), role: .guard,
                    doorGroups: ["building-b"]))
            let gus = Browser(client)
            #expect(try await gus.logIn("gus").headers[.location] == "/console/doors")
            let doors = String(buffer: try await gus.get("/console/doors.json").body)
            #expect(doors.contains("b-front") && !doors.contains("a-front"), "\(doors)")
            let page = String(buffer: try await gus.get("/console/doors").body)
            #expect(!page.contains("a-front") && !page.contains("id=\"waiting-heading\""), "no other door, no doors' secrets")
            let entries = String(buffer: try await gus.get("/console/entries.json").body)
            #expect(entries.contains("b-front") && !entries.contains("a-front"), "\(entries)")
            // The owner sees both.
            let owner = Browser(client)
            try await owner.logIn()
            let all = String(buffer: try await owner.get("/console/entries.json").body)
            #expect(all.contains("b-front") && all.contains("a-front"))
            let csrf = Browser.field("csrf", in: page) ?? ""
            let outside = try await gus.post("/console/doors/command", [("csrf", csrf), ("door", "a-front"), ("reason", "courier"), ("action", "unlock")])
            #expect(outside.status == .forbidden && String(buffer: outside.body).contains("which is in none of them"), "\(outside.status)")
            // The Site page lists the modes of their doors only.
            let modes = ModeChanges(administration: harness.under.administration, changes: AdministratorChanges(store: harness.under.store, by: .commandLine()))
            for door in ["b-front", "a-front"] { _ = try await modes.set(SetMode(.release, door: door), at: harness.clock.now) }
            let site = String(buffer: try await gus.get("/console/site").body)
            #expect(site.contains("b-front") && !site.contains("a-front"), "\(site.prefix(3_000))")
        }
    }

    @Test("A user manager limited to a door group sees and edits only the users whose access lies there")
    func aUserManagerOfOneBuildingSeesItsUsersOnly() async throws {
        try await ConsoleHarness.withConsole(.sqlite) { harness, client in
            try await harness.under.administration.setDoorGroup(name: "building-b", DoorGroup(doors: ["b-front"]))
            let hash = try PINHash.make(pin: SecretDigits(ascii: "4826")!, iterations: 1_000)
            var inB = AccessRule()
            inB.doors = ["b-front"]
            try await harness.under.administration.addUser(name: "bea", hash: hash, tag: nil, rule: inB)
            try await harness.under.administration.addUser(name: "amy", hash: hash, tag: nil, rule: AccessRule())
            #expect(
                try await harness.under.console.addAdmin(
                    name: "uma", hash: try PINHash.make(password: Array(ConsoleHarness.password.utf8), iterations: 1_000), role: .userManager,
                    doorGroups: ["building-b"]))
            let uma = Browser(client)
            try await uma.logIn("uma")
            let page = String(buffer: try await uma.get("/console/users").body)
            #expect(page.contains("data-user=\"bea\"") && !page.contains("data-user=\"amy\""), "only bea is hers")
            #expect(try await uma.get("/console/users/edit?name=bea").status == .ok)
            let amy = try await uma.get("/console/users/edit?name=amy")
            #expect(amy.status == .forbidden && String(buffer: amy.body).contains("may not act on user amy"))
            let csrf = Browser.field("csrf", in: page) ?? ""
            let disable = try await uma.post("/console/users/state", [("csrf", csrf), ("name", "amy"), ("state", "disabled")])
            #expect(disable.status == .forbidden, "\(disable.status)")
            #expect(try await harness.under.administration.siteRules().rules["amy"]?.disabled != true)
            // The codes page: bea's code, not amy's.
            let owner = CodeIssuing(
                administration: harness.under.administration, changes: AdministratorChanges(store: harness.under.store, by: .commandLine()),
                codeLength: 8, lookupKey: nil)
            for user in ["bea", "amy"] { _ = try await owner.issue(user: user, door: nil, expires: harness.clock.now.addingTimeInterval(3_600)) }
            let codes = String(buffer: try await uma.get("/console/codes").body)
            #expect(codes.contains(">bea<") && !codes.contains(">amy<"), "\(codes.prefix(2_000))")
        }
    }
}
