import Foundation
import KeypadTestSupport
import Testing

/// Holidays and lockdown set with `kioskpad verifier holiday|mode|user set --responder`,
/// decided by `verifier serve` for a real door (`simulate` with a replica), and by the same
/// door from its replica while the verifier is stopped; the door shows the lockdown and
/// journals its mode with who set it.
extension OfflineDoorEndToEndTests {
    /// `yyyy-MM-dd` in UTC, `days` from now.
    static func utcDate(_ days: Int) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date().addingTimeInterval(Double(days) * 86_400))
    }

    /// The journal's `door_mode` records as `mode:source:set_by`.
    func modeRecords(_ door: Door) throws -> [String] {
        try String(contentsOf: door.state.appendingPathComponent("journal.jsonl"), encoding: .utf8).split(separator: "\n").compactMap {
            guard let object = try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], object["type"] as? String == "door_mode" else {
                return nil
            }
            return [object["mode"], object["source"], object["set_by"]].map { $0 as? String ?? "-" }.joined(separator: ":")
        }
    }

    @Test(arguments: AccessRulesEndToEndTests.Store.allCases)
    func aLockdownAndAHolidayDecideOnlineAndOfflineAndTheDoorShowsTheLockdown(_ store: AccessRulesEndToEndTests.Store) async throws {
        let site = try await AccessRulesEndToEndTests.Site(store)
        try await site.closing {
            let door = try await Door(site)
            var server = try await VerifierProcess(directory: site.directory)
            try door.configure(port: server.port)
            #expect(try await site.cli(["verifier", "user", "set", "dana", "--responder", "yes"]).status == 0)
            let locked = try await site.cli(["verifier", "mode", "set", "lockdown"])
            #expect(locked.status == 0 && locked.stdout.contains("site set to lockdown"), "\(locked.stdout)\(locked.stderr)")
            #expect(try await site.cli(["verifier", "mode", "show"]).stdout.contains("site lockdown (set by cli:"))
            #expect(try await door.credentials("sync").status == 0)

            // Online: the server refuses bob (lockdown) and admits dana, a responder; the door shows it.
            let refused = try await door.simulate("1470")
            #expect(refused.frames.last?.contains("Access denied") == true, "\(refused.frames.last ?? refused.stderr)")
            #expect(refused.frames.contains { $0.contains("Lockdown") }, "\(refused.frames)")
            #expect(try await door.simulate("3691").frames.last?.contains("Access granted") == true)
            #expect(try await site.deniedReasons().last == "lockdown")
            let modes = try modeRecords(door)
            #expect(modes.first?.hasPrefix("lockdown:site:cli:") == true, "\(modes)")

            // Offline: the replica decides the same.
            await server.stopped()
            #expect(try await door.simulate("1470").frames.last?.contains("Access denied") == true)
            #expect(door.attemptsOffline().last == "denied lockdown")
            #expect(try await door.simulate("3691").frames.last?.contains("Access granted") == true)

            // The lockdown lifted, a holiday today for bob's schedule: refused as a holiday, online and offline.
            server = try await VerifierProcess(directory: site.directory)
            defer { server.stop() }
            try door.configure(port: server.port)
            #expect(try await site.cli(["verifier", "mode", "set", "normal"]).status == 0)
            #expect(try await site.cli(["verifier", "schedule", "set", "any-day", "daily"]).status == 0)
            #expect(try await site.cli(["verifier", "user", "set", "bob", "--schedule", "any-day"]).status == 0)
            for day in -1...1 {
                let set = try await site.cli(["verifier", "holiday", "set", Self.utcDate(day), "--label", "Test day"])
                #expect(set.status == 0, "\(set.stderr)")
            }
            #expect(try await site.cli(["verifier", "holiday", "list"]).stdout.contains("\(Self.utcDate(0)) Test day"))
            #expect(try await door.credentials("sync").status == 0)
            let holiday = try await door.simulate("1470")
            #expect(holiday.frames.last?.contains("Access denied") == true && !holiday.frames.contains { $0.contains("Lockdown") })
            #expect(try await site.deniedReasons().last == "holiday")
            #expect(try await door.simulate("3691").frames.last?.contains("Access granted") == true)
            await server.stopped()
            #expect(try await door.simulate("1470").frames.last?.contains("Access denied") == true)
            #expect(door.attemptsOffline().last == "denied holiday")
            // Each run of the door in lockdown journaled it as it started; none since the lift.
            let later = try modeRecords(door)
            #expect(later.count == 4 && later.allSatisfy { $0.hasPrefix("lockdown:site:cli:") }, "\(later)")
            // Each run's journal starts with `start`; its mode comes after it, never before.
            let types = try String(contentsOf: door.state.appendingPathComponent("journal.jsonl"), encoding: .utf8).split(separator: "\n").map {
                (try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["type"] as? String ?? "?"
            }
            #expect(types.first == "start", "\(types)")
            #expect(!zip(types, types.dropFirst()).contains { $0 == "door_mode" && $1 == "start" }, "\(types)")
        }
    }
}

extension OfflineDoorEndToEndTests.Door {
    /// `decision reason` of the offline attempts in the door's journal, oldest first.
    func attemptsOffline() -> [String] {
        ((try? attempts()) ?? []).filter { $0["offline"] as? Bool == true }.map { record in
            [record["decision"], record["reason"]].compactMap { $0 as? String }.joined(separator: " ")
        }
    }
}

extension OfflineDoorEndToEndTests {
    @Test(arguments: AccessRulesEndToEndTests.Store.allCases)
    func aDoorWithAnUnlockScheduleStartsReleasedInItsWindowAndShowsIt(_ store: AccessRulesEndToEndTests.Store) async throws {
        let site = try await AccessRulesEndToEndTests.Site(store)
        try await site.closing {
            let door = try await Door(site)
            let server = try await VerifierProcess(directory: site.directory)
            defer { server.stop() }
            try door.configure(port: server.port)
            #expect(try await site.cli(["verifier", "schedule", "set", "opening", "daily"]).status == 0)
            let set = try await site.cli(["verifier", "unlock", "set", "front-door", "opening"])
            #expect(set.status == 0 && set.stdout.contains("door front-door unlocks in schedule opening"), "\(set.stdout)\(set.stderr)")
            #expect(try await site.cli(["verifier", "unlock", "list"]).stdout.contains("front-door schedule=opening"))
            #expect(try await door.credentials("sync").status == 0)
            let released = try await door.simulate("")
            #expect(released.frames.contains { $0.contains("Door released") }, "\(released.frames)")
            #expect(try modeRecords(door) == ["release:schedule:-"])
            // First-in: the door waits for a staff entry (none yet this run).
            #expect(try await site.cli(["verifier", "unlock", "set", "front-door", "opening", "--first-in"]).status == 0)
            #expect(try await site.cli(["verifier", "user", "set", "bob", "--staff", "yes"]).status == 0)
            #expect(try await door.credentials("sync").status == 0)
            let waiting = try await door.simulate("")
            #expect(!waiting.frames.contains { $0.contains("Door released") }, "\(waiting.frames)")
        }
    }
}
