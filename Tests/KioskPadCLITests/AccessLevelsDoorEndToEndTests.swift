import Foundation
import KeypadTestSupport
import Testing

/// Groups and access levels set with `kioskpad verifier door-group|level|group` and `user set
/// --groups`, decided by `verifier serve` for a real door (`simulate` with a replica), and by
/// the same door from its replica while the verifier is stopped: the replica carries bob's
/// rule compiled for the door (two levels' schedules, `requires: access_levels`), never the tree.
extension OfflineDoorEndToEndTests {
    @Test(arguments: AccessRulesEndToEndTests.Store.allCases)
    func groupsAndLevelsDecideOnlineAndOfflineAlike(_ store: AccessRulesEndToEndTests.Store) async throws {
        let site = try await AccessRulesEndToEndTests.Site(store)
        try await site.closing {
            let door = try await Door(site)
            var server = try await VerifierProcess(directory: site.directory)
            try door.configure(port: server.port)
            for command in [
                ["schedule", "set", "every-day", "daily"], ["schedule", "set", "monday-dawn", "mon 00:00-00:01"],
                ["door-group", "set", "ground", "--doors", "front-door,side-door"],
                ["level", "set", "ground-days", "--door-groups", "ground", "--schedule", "every-day"],
                ["level", "set", "ground-dawn", "--door-groups", "ground", "--schedule", "monday-dawn"],
                ["level", "set", "back-only", "--doors", "back-door"],
                ["group", "set", "staff", "--levels", "ground-days,ground-dawn"], ["group", "set", "visitors", "--levels", "back-only"],
                ["user", "set", "bob", "--groups", "staff", "--doors", "none"],
            ] {
                let result = try await site.cli(["verifier"] + command)
                #expect(result.status == 0, "\(command): \(result.stderr)")
            }
            let explained = try await site.cli(["verifier", "access", "door", "front-door"])
            #expect(explained.stdout.contains("bob via group staff, level ground-days: front-door,side-door in schedule every-day"), "\(explained.stdout)")
            #expect(try await door.credentials("sync").status == 0)
            let shown = try await door.credentials("show")
            #expect(shown.stdout.contains("doors=front-door schedule=every-day,monday-dawn"), "\(shown.stdout)")
            #expect(!shown.stdout.contains("groups=") && !shown.stdout.contains("ground"), "the door never sees the tree: \(shown.stdout)")

            // Online, then offline from the replica: bob enters through staff's levels.
            #expect(try await door.simulate("1470").frames.last?.contains("Access granted") == true)
            await server.stopped()
            #expect(try await door.simulate("1470").frames.last?.contains("Access granted") == true)
            #expect(door.attemptsOffline().last == "granted")

            // In visitors instead, bob has only back-door: refused at front-door online and offline.
            server = try await VerifierProcess(directory: site.directory)
            defer { server.stop() }
            try door.configure(port: server.port)
            #expect(try await site.cli(["verifier", "user", "set", "bob", "--groups", "visitors"]).status == 0)
            #expect(try await door.simulate("1470").frames.last?.contains("Access denied") == true)
            #expect(try await site.deniedReasons().last == "not_permitted_here")
            #expect(try await door.credentials("sync").status == 0)
            await server.stopped()
            #expect(try await door.simulate("1470").frames.last?.contains("Access denied") == true)
            #expect(door.attemptsOffline().last == "denied no_match" || door.attemptsOffline().last == "denied", "\(door.attemptsOffline())")
        }
    }
}
