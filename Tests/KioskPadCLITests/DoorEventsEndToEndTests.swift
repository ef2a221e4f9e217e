import Foundation
import KeypadTestSupport
import Testing

/// A terminal's `events.url` pointed at `verifier serve`'s `POST /v1/events`: the records it
/// journals reach the verifier's database, the last ones before `simulate` exits.
@Suite("Door events end to end", .serialized, .heavy)
struct DoorEventsEndToEndTests {
    @Test(arguments: AccessRulesEndToEndTests.Store.allCases)
    func theLastGrantReachesTheVerifiersDatabaseBeforeSimulateExits(_ store: AccessRulesEndToEndTests.Store) async throws {
        let site = try await AccessRulesEndToEndTests.Site(store)
        try await site.closing {
            let server = try await VerifierProcess(directory: site.directory)
            defer { server.stop() }
            let terminal = site.directory.appendingPathComponent("terminal-events.yaml")
            try """
            terminal_id: front-door
            state_dir: \(site.directory.appendingPathComponent("terminal-state").path)
            verifier: {kind: http, url: "http://127.0.0.1:\(server.port)/verify", secret_file: secret}
            events: {url: "http://127.0.0.1:\(server.port)/v1/events", secret_file: secret}
            """.write(to: terminal, atomically: true, encoding: .utf8)
            let result = try await CLI.run(["simulate", "--config", terminal.path, "--display", "plain"], stdin: "3691")
            #expect(CLI.frames(result.stdout).last?.contains("Access granted") == true)
            // Read at once after exit: nothing waited for a later start.
            let types = try await eventTypes(site)
            #expect(types.contains("attempt granted dana") && types.contains("start") && types.contains("stop"), "\(types)")
            for text in (types + [result.stdout, result.stderr]).map(redactingMeasuredValues) { #expect(!text.contains("3691")) }
            let status = try await site.cli(["verifier", "terminal", "status"])
            #expect(status.status == 0 && status.stdout.hasPrefix("front-door seen "), "\(status.stdout)\(status.stderr)")
            #expect(status.stdout.contains("door=unknown keypad=ok tamper=clear locked_out=no last=granted(dana) alerts=none"), "\(status.stdout)")
        }
    }

    /// `type decision user` of each stored event, oldest first.
    func eventTypes(_ site: AccessRulesEndToEndTests.Site) async throws -> [String] {
        try await site.eventRecords().map { record in
            [record["type"], record["decision"], record["user"]].compactMap { $0 as? String }.joined(separator: " ")
        }
    }
}
