import Foundation
import KeypadTestSupport
import Testing

/// A door given the addresses of two `verifier serve` instances on one PostgreSQL
/// (`verifier.urls`, `events.urls`), with no load balancer: with both up the first decides;
/// with the first stopped the second decides online (not the replica), gives the replica, and
/// takes the door's journal records, each stored once; a door whose first address never
/// existed asks the second at once.
@Suite("Doors with several site addresses", .serialized, .heavy)
struct SiteAddressesDoorEndToEndTests {
    /// The door's config naming `ports` in order (a port may be stopped or closed).
    func configure(_ site: AccessRulesEndToEndTests.Site, ports: [Int], key: String, state: URL) throws -> String {
        let config = site.directory.appendingPathComponent("door-\(UUID()).yaml").path
        let verify = ports.map { "\"http://127.0.0.1:\($0)/verify\"" }.joined(separator: ", ")
        let events = ports.map { "\"http://127.0.0.1:\($0)/v1/events\"" }.joined(separator: ", ")
        try """
        terminal_id: front-door
        state_dir: \(state.path)
        verifier:
          kind: http
          urls: [\(verify)]
          timeout_s: 2
          secret_file: secret
          offline: {mode: fallback, public_key: "\(key)"}
        events: {urls: [\(events)], secret_file: secret}
        """.write(toFile: config, atomically: true, encoding: .utf8)
        return config
    }

    /// The attempt records of the door's journal.
    func attempts(_ state: URL) throws -> [[String: Any]] {
        try String(contentsOf: state.appendingPathComponent("journal.jsonl"), encoding: .utf8).split(separator: "\n").compactMap {
            let object = try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            return object?["type"] as? String == "attempt" ? object : nil
        }
    }

    @Test func twoInstancesOnePostgresNoLoadBalancer() async throws {
        let site = try await AccessRulesEndToEndTests.Site(.postgres)
        try await site.closing {
            let key = try await site.cli(["verifier", "public-key"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let first = try await VerifierProcess(directory: site.directory)
            let second = try await VerifierProcess(directory: site.directory)
            defer { second.stop() }
            let state = site.directory.appendingPathComponent("door-state")
            let config = try configure(site, ports: [first.port, second.port], key: key, state: state)
            let simulate = { (keys: String) async throws -> CLI.Result in
                try await CLI.run(["simulate", "--config", config, "--display", "plain", "--log-level", "info"], stdin: keys)
            }

            let synced = try await CLI.run(["credentials", "sync", "--config", config])
            #expect(synced.status == 0 && synced.stdout.hasPrefix("replica v"), "\(synced.stdout)\(synced.stderr)")
            let both = try await simulate("1470")
            #expect(CLI.frames(both.stdout).last?.contains("Access granted") == true, "\(both.stderr)")

            // The first instance stops: the second decides online, gives the replica, takes the records.
            _ = await first.stopped()
            let alone = try await simulate("1470")
            #expect(CLI.frames(alone.stdout).last?.contains("Access granted") == true, "\(alone.stderr)")
            #expect(!alone.stderr.contains("1470"))
            let resynced = try await CLI.run(["credentials", "sync", "--config", config])
            #expect(resynced.status == 0, "\(resynced.stdout)\(resynced.stderr)")
            let journaled = try attempts(state)
            #expect(journaled.count == 2 && journaled.allSatisfy { $0["offline"] == nil && $0["decision"] as? String == "granted" }, "\(journaled)")

            // Every journal record the door made reached the site once, by whichever instance.
            _ = try await simulate("")
            let ids = try await site.eventRecords().compactMap { $0["attempt_id"] as? String }
            let local = journaled.compactMap { $0["attempt_id"] as? String }
            #expect(Set(local).isSubset(of: Set(ids)) && ids.count == Set(ids).count, "site \(ids) door \(local)")
        }
    }
}
