import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import KioskPadAccess
import SiteCore
import Testing
import VerifierTestSupport

/// The console's Access page on both stores: a door group, a level and a user group made
/// from their forms (a name the site lacks refused and nothing saved), a user put in the
/// group from their page, "who can open this door" and "where can this user go" shown from
/// the evaluator's grants, what is in use kept; each change audited with the administrator.
@Suite("Site console: the Access page", .serialized)
struct ConsoleAccessPageTests {
    @Test("Groups and levels made in the console explain who can open a door and why", arguments: StoreUnderTest.Kind.allCases)
    func groupsAndLevels(kind: StoreUnderTest.Kind) async throws {
        try await ConsoleHarness.withConsole(kind) { harness, client in
            try await ManagementAPITests().addUsers(harness, ["ana", "ben"])
            try await harness.under.administration.setSchedule(name: "office", spec: "mon-fri 08:00-18:00")
            let browser = Browser(client)
            try await browser.logIn()
            let csrf = try await browser.csrf()
            let missing = try await browser.post("/console/access/levels", [("csrf", csrf), ("name", "staff-hours"), ("door_groups", "ground")])
            #expect(missing.status == .badRequest && String(buffer: missing.body).contains("no such door group"))
            #expect(try await harness.under.administration.siteRules().access.levels.isEmpty, "nothing saved")
            for (path, fields) in [
                ("door-groups", [("name", "ground"), ("doors", "front, side")]),
                ("levels", [("name", "staff-hours"), ("door_groups", "ground"), ("schedule", "office")]),
                ("groups", [("name", "staff"), ("levels", "staff-hours")]),
            ] {
                let saved = try await browser.post("/console/access/\(path)", [("csrf", csrf)] + fields)
                #expect(saved.status == .seeOther, "\(path): \(saved.status) \(String(buffer: saved.body))")
            }
            let edited = try await browser.post("/console/users/rule", [("csrf", csrf), ("name", "ana"), ("groups", "staff"), ("schedule", "always")])
            #expect(edited.status == .seeOther, "\(String(buffer: edited.body))")
            #expect(try await harness.under.administration.siteRules().rules["ana"] == AccessRule(groups: ["staff"]))
            let door = String(buffer: try await browser.get("/console/access?door=side").body)
            #expect(door.contains("<td>ana</td><td>group staff, level staff-hours</td><td>office</td>"), "\(door)")
            #expect(door.contains("<td>ben</td><td>own</td><td>always</td>"))
            let user = String(buffer: try await browser.get("/console/access?user=ana").body)
            #expect(user.contains("<td>group staff, level staff-hours</td><td>front, side</td><td>office</td>"), "\(user)")
            let users = String(buffer: try await browser.get("/console/users?q=ana").body)
            #expect(users.contains("groups staff"))
            let inUse = try await browser.post("/console/access/groups/remove", [("csrf", csrf), ("name", "staff")])
            #expect(inUse.status == .conflict && String(buffer: inUse.body).contains("used by user ana"))
            let records = try await harness.under.auditRecords().filter { ($0["action"] ?? "").hasSuffix("_set") || $0["action"] == "user_rule" }
            #expect(records.compactMap { $0["action"] } == ["door_group_set", "level_set", "user_group_set", "user_rule"])
            #expect(records.allSatisfy { $0["admin"] == "alice" })
        }
    }
}
