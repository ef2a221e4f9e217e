import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import KioskPadAccess
import SiteCore
import Testing
import VerifierTestSupport

/// Door groups, access levels and user groups through `/api/v1/` on both stores: each set
/// and removed by its name (a name it gives that the site lacks refused, one in use kept),
/// users put in groups with PATCH, and "who can open this door" and "where can this user go"
/// answered from the same grants the evaluator decides by; every change one audit record.
@Suite("Management API: groups and access levels", .serialized)
struct ManagementAPIAccessLevelTests {
    let api = ManagementAPITests()
    let hooks = ManagementAPIWebhookTests()

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aSiteIsOrganisedByGroupsAndLevelsAndExplainsItsAccess(_ kind: StoreUnderTest.Kind) async throws {
        try await ConsoleHarness.withConsole(kind) { harness, client in
            try await api.addUsers(harness, ["ana", "ben"])
            let facilities = try await api.token(harness, "facilities", [.doors])
            let hr = try await api.token(harness, "hr", [.users])
            let reader = try await api.token(harness, "reader", [.read])
            _ = try await hooks.send(client, "/api/v1/schedules/office", .put, #"{"spec":"mon-fri 08:00-18:00"}"#, token: facilities)
            #expect(try await hooks.send(client, "/api/v1/door-groups/ground", .put, #"{"doors":["front","side"]}"#, token: reader).0 == 403)
            let (grouped, group) = try await hooks.send(client, "/api/v1/door-groups/ground", .put, #"{"doors":["front","side"]}"#, token: facilities)
            #expect(grouped == 200 && group["doors"] as? [String] == ["front", "side"])
            let (unknown, why) = try await hooks.send(
                client, "/api/v1/access-levels/staff-hours", .put, #"{"door_groups":["upstairs"],"schedule":"office"}"#, token: facilities)
            #expect(unknown == 400 && (why["error"] as? String)?.contains("--door-groups upstairs: no such door group") == true, "\(why)")
            let (leveled, level) = try await hooks.send(
                client, "/api/v1/access-levels/staff-hours", .put, #"{"door_groups":["ground"],"schedule":"office"}"#, token: facilities)
            #expect(leveled == 200 && level["door_groups"] as? [String] == ["ground"] && level["schedule"] as? String == "office")
            let (empty, _) = try await hooks.send(client, "/api/v1/access-levels/nothing", .put, #"{"schedule":null}"#, token: facilities)
            #expect(empty == 400, "a level opens at least one door")
            let (made, staff) = try await hooks.send(client, "/api/v1/groups/staff", .put, #"{"levels":["staff-hours"]}"#, token: facilities)
            #expect(made == 200 && staff["levels"] as? [String] == ["staff-hours"] && staff["disabled"] as? Bool == false)
            // ana joins staff: she has no door of her own now, only staff's.
            let (joined, ana) = try await hooks.send(client, "/api/v1/users/ana", .patch, #"{"groups":["staff"]}"#, token: hr)
            #expect(joined == 200 && ana["groups"] as? [String] == ["staff"] && ana["levels"] as? [String] == [])
            let (noSuch, said) = try await hooks.send(client, "/api/v1/users/ben", .patch, #"{"groups":["cleaners"]}"#, token: hr)
            #expect(noSuch == 409 && (said["error"] as? String)?.contains("no such user group") == true)
            let (_, door) = try await api.call(client, "/api/v1/doors/side/access", token: reader)
            let lines = try #require(door["access"] as? [[String: Any]])
            #expect(lines.compactMap { $0["user"] as? String } == ["ana", "ben"], "\(lines)")
            let anas = try #require(lines.first)
            #expect(
                (anas["via"] as? [String: String]) == ["kind": "group", "group": "staff", "level": "staff-hours"] && anas["schedule"] as? String == "office")
            #expect((lines.last?["via"] as? [String: String]) == ["kind": "own"], "ben has every door of his own")
            let (_, where_) = try await api.call(client, "/api/v1/users/ana/access", token: reader)
            #expect((where_["access"] as? [[String: Any]])?.first?["doors"] as? [String] == ["front", "side"])
            #expect(try await api.call(client, "/api/v1/users/nobody/access", token: reader).0 == 404)
            // What is in use stays.
            let (inUse, because) = try await hooks.send(client, "/api/v1/groups/staff", .delete, "", token: facilities)
            #expect(inUse == 409 && (because["error"] as? String)?.contains("user ana") == true)
            #expect(try await hooks.send(client, "/api/v1/access-levels/staff-hours", .delete, "", token: facilities).0 == 409)
            #expect(try await hooks.send(client, "/api/v1/door-groups/upstairs", .delete, "", token: facilities).0 == 404)
            // The group disabled: ana opens nothing, and the answer says why.
            _ = try await hooks.send(client, "/api/v1/groups/staff", .put, #"{"levels":["staff-hours"],"disabled":true}"#, token: facilities)
            let (_, blocked) = try await api.call(client, "/api/v1/users/ana/access", token: reader)
            #expect((blocked["access"] as? [[String: Any]])?.first?["blocked"] as? String == "group staff disabled")
            let site = try await harness.under.administration.siteRules()
            #expect(site.access.userGroups["staff"]?.disabled == true && site.rules["ana"]?.groups == ["staff"])
            let actions = try await harness.under.auditRecords().compactMap { $0["action"] }
            #expect(actions.filter { $0 == "door_group_set" }.count == 1 && actions.filter { $0 == "level_set" }.count == 1)
            #expect(actions.filter { $0 == "user_group_set" }.count == 2 && actions.filter { $0 == "user_rule" }.count == 1, "\(actions)")
        }
    }
}
