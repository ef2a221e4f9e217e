import Foundation
import KeypadTestSupport
import Testing

/// A PIN chosen at a door: `kioskpad verifier user enrol-code` prints a code once, the user
/// types it at a door with `entry.enrolment` (`simulate` against `verifier serve`), is refused
/// a weak PIN there, chooses one twice, and then enters with it; the administrator never saw
/// it, and neither the journal nor the log holds it; the door offline admits the new PIN from
/// its next replica.
extension OfflineDoorEndToEndTests {
    @Test(arguments: AccessRulesEndToEndTests.Store.allCases)
    func aUserChoosesTheirPINAtTheDoorWithAnEnrolmentCode(_ store: AccessRulesEndToEndTests.Store) async throws {
        let site = try await AccessRulesEndToEndTests.Site(store)
        try await site.closing {
            let door = try await Door(site)
            let server = try await VerifierProcess(directory: site.directory)
            defer { server.stop() }
            try door.configure(port: server.port)
            try (try String(contentsOfFile: door.config, encoding: .utf8) + "\nentry: {enrolment: true}\n").write(
                toFile: door.config, atomically: true, encoding: .utf8)
            let issued = try await site.cli(["verifier", "user", "enrol-code", "bob", "--ttl", "1h"])
            #expect(issued.status == 0, "\(issued.stderr)")
            let code = issued.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(code.count >= 4 && code.allSatisfy(\.isNumber), "\(issued.stdout)")
            let unknown = try await site.cli(["verifier", "user", "enrol-code", "nobody"])
            #expect(unknown.status != 0 && unknown.stderr.contains("nobody"), "\(unknown.stderr)")

            // The end key, the code, a weak PIN (refused at once), then the PIN twice.
            let chosen = try await door.simulate("#" + code + "#" + "1234" + "3579" + "3579")
            #expect(chosen.frames.contains { $0.contains("Enrolment code") }, "\(chosen.frames)")
            #expect(chosen.frames.contains { $0.contains("Too easy, again") }, "\(chosen.frames)")
            #expect(chosen.frames.contains { $0.contains("New PIN again") }, "\(chosen.frames)")
            #expect(chosen.frames.last?.contains("PIN set") == true, "\(chosen.frames.last ?? chosen.stderr)")
            let journal = try String(contentsOf: door.state.appendingPathComponent("journal.jsonl"), encoding: .utf8)
            #expect(journal.contains("\"type\":\"pin_enrolment\"") && journal.contains("\"result\":\"pin_set\""), "\(journal)")
            #expect(!journal.contains("\"type\":\"door_unlocked\""), "choosing a PIN opens nothing")

            // bob enters with it; his old PIN and the used code do not.
            #expect(try await door.simulate("3579").frames.last?.contains("Access granted") == true)
            #expect(try await door.simulate("1470").frames.last?.contains("Access denied") == true)
            let again = try await door.simulate("#" + code + "#" + "2468" + "2468")
            #expect(again.frames.last?.contains("Code not valid") == true, "\(again.frames.last ?? again.stderr)")
            // The administrator sees only that bob has a PIN.
            let listed = try await site.cli(["verifier", "user", "list"])
            #expect(listed.stdout.contains("bob pin"), "\(listed.stdout)")
            // The next replica carries it, tagged: the door offline admits bob with it.
            #expect(try await door.credentials("sync").status == 0)
            await server.stopped()
            #expect(try await door.simulate("3579").frames.last?.contains("Access granted") == true)
            #expect(door.attemptsOffline().last == "granted", "\(door.attemptsOffline())")
            // Ids (UUIDs, hex) may hold any four digits by chance: left out of the search.
            for text in [chosen.stderr, again.stderr, journal, listed.stdout] {
                let unhexed = text.replacingOccurrences(of: "[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}", with: "", options: .regularExpression)
                #expect(!text.contains(code) && !unhexed.contains("3579"), "\(text)")
            }
        }
    }
}
