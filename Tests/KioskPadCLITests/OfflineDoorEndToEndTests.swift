import Foundation
import KeypadTestSupport
import Testing

/// A door with `verifier.offline.mode: fallback` against `verifier serve` in its own
/// process: it syncs its replica, decides from it while the verifier is stopped (grants,
/// denials, local lockout), forwards those records once the verifier is back, follows a
/// removal at its next sync, and refuses a replica that was tampered with or is too old.
@Suite("Offline door end to end", .serialized, .heavy)
struct OfflineDoorEndToEndTests {
    final class Door {
        let site: AccessRulesEndToEndTests.Site
        let key: String
        var state: URL { site.directory.appendingPathComponent("door-state") }
        var config: String { site.directory.appendingPathComponent("door.yaml").path }
        var replica: URL { state.appendingPathComponent("replica.json") }

        init(_ site: AccessRulesEndToEndTests.Site) async throws {
            self.site = site
            let printed = try await site.cli(["verifier", "public-key"])
            #expect(printed.status == 0, "\(printed.stderr)")
            key = printed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// Points the door at a verifier on `port` (one that may be stopped); `entry`, a line
        /// of the door's config (e.g. code mode).
        func configure(port: Int, maxAgeHours: Int = 24, syncSeconds: Int = 60, timeoutSeconds: Double = 0.5, entry: String = "") throws {
            try """
            terminal_id: front-door
            state_dir: \(state.path)
            lockout: {max_failures: 2}
            \(entry)
            verifier:
              kind: http
              url: http://127.0.0.1:\(port)/verify
              timeout_s: \(timeoutSeconds)
              secret_file: secret
              offline: {mode: fallback, public_key: "\(key)", max_age_h: \(maxAgeHours), sync_s: \(syncSeconds)}
            events: {url: "http://127.0.0.1:\(port)/v1/events", secret_file: secret}
            """.write(toFile: config, atomically: true, encoding: .utf8)
        }

        func credentials(_ command: String) async throws -> CLI.Result {
            try await CLI.run(["credentials", command, "--config", config])
        }

        /// `simulate` with `keys` typed; its frames and stderr.
        func simulate(_ keys: String) async throws -> (frames: [String], stderr: String) {
            let result = try await CLI.run(["simulate", "--config", config, "--display", "plain", "--log-level", "info"], stdin: keys)
            return (CLI.frames(result.stdout), result.stderr)
        }

        /// The journal's attempt records, as JSON objects.
        func attempts() throws -> [[String: Any]] {
            try String(contentsOf: state.appendingPathComponent("journal.jsonl"), encoding: .utf8).split(separator: "\n").compactMap {
                let object = try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
                return object?["type"] as? String == "attempt" ? object : nil
            }
        }
    }

    @Test(arguments: AccessRulesEndToEndTests.Store.allCases)
    func aStoppedVerifierLeavesTheDoorDecidingFromItsReplica(_ store: AccessRulesEndToEndTests.Store) async throws {
        let site = try await AccessRulesEndToEndTests.Site(store)
        try await site.closing {
            let door = try await Door(site)
            var server = try await VerifierProcess(directory: site.directory)
            try door.configure(port: server.port)
            let synced = try await door.credentials("sync")
            #expect(synced.status == 0 && synced.stdout.hasPrefix("replica v") && synced.stdout.contains(": 2 users"), "\(synced.stdout)\(synced.stderr)")
            let mode = try FileManager.default.attributesOfItem(atPath: door.replica.path)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            let shown = try await door.credentials("show")
            #expect(shown.stdout.contains("bob pin doors=front-door") && shown.stdout.contains("dana pin every door"), "\(shown.stdout)")
            #expect(shown.stdout.contains("offline decisions: allowed") && !shown.stdout.contains("pbkdf2"), "\(shown.stdout)")
            await server.stopped()

            // Verifier stopped: bob is granted from the replica, a wrong PIN twice locks the door.
            let granted = try await door.simulate("1470")
            #expect(granted.frames.last?.contains("Access granted") == true, "\(granted.frames.last ?? granted.stderr)")
            let wrong = try await door.simulate("85208520")
            #expect(wrong.frames.last?.contains("Locked") == true, "\(wrong.frames.last ?? wrong.stderr)")
            let offline = try door.attempts()
            #expect(offline.allSatisfy { $0["offline"] as? Bool == true && ($0["replica_version"] as? Int ?? 0) > 0 }, "\(offline)")
            #expect(offline.map { $0["decision"] as? String ?? "" } == ["granted", "denied", "denied"])
            #expect(offline.first?["user"] as? String == "bob")
            for text in [granted.stderr, wrong.stderr] { #expect(!text.contains("1470") && !text.contains("8520")) }

            // The verifier is back: the offline records reach it exactly once.
            server = try await VerifierProcess(directory: site.directory)
            defer { server.stop() }
            try door.configure(port: server.port)
            _ = try await door.simulate("")
            let stored = try await offlineAttempts(site)
            #expect(stored == ["granted bob", "denied", "denied"], "\(stored)")

            // bob is removed: the next sync takes him off this door, even with the verifier gone,
            // by a delta naming him alone, which each later start of the door reads with the replica.
            #expect(try await site.cli(["verifier", "user", "remove", "bob"]).status == 0)
            let resynced = try await door.credentials("sync")
            #expect(resynced.status == 0 && resynced.stdout.contains(": 1 user (a delta of 1 user) "), "\(resynced.stdout)\(resynced.stderr)")
            await server.stopped()
            let removed = try await door.simulate("1470")
            #expect(removed.frames.last?.contains("Access denied") == true, "\(removed.frames.last ?? removed.stderr)")
            #expect(try await door.simulate("3691").frames.last?.contains("Access granted") == true)

            // A replica older than max_age_h is refused: the boot clock says the last
            // confirmation came 2 hours ago.
            let confirmation = door.state.appendingPathComponent("replica-confirmation.json")
            var file = try JSONSerialization.jsonObject(with: Data(contentsOf: confirmation)) as! [String: Any]
            file["boottime_ns"] = (file["boottime_ns"] as! Int) - 2 * 3600 * 1_000_000_000
            try JSONSerialization.data(withJSONObject: file).write(to: confirmation)
            try door.configure(port: server.port, maxAgeHours: 1)
            let stale = try await door.credentials("show")
            #expect(stale.stdout.contains("refused now: replica v") && stale.stdout.contains("longer than max_age_h (1 h)"), "\(stale.stdout)")
            let tooOld = try await door.simulate("3691")
            #expect(tooOld.frames.last?.contains("Verifier unavailable") == true, "\(tooOld.frames.last ?? tooOld.stderr)")
            let refusedRecord = try door.attempts().last
            #expect((refusedRecord?["offline_refused"] as? String)?.contains("longer than max_age_h") == true, "\(refusedRecord ?? [:]) \(tooOld.stderr)")

            // A tampered replica is refused, and `credentials show` says why.
            try door.configure(port: server.port)
            var text = try String(contentsOf: door.replica, encoding: .utf8)
            let payload = try #require(text.range(of: "\"payload\":\""))
            let at = text.index(payload.upperBound, offsetBy: 40)
            text.replaceSubrange(at...at, with: text[at] == "A" ? "B" : "A")
            try text.write(to: door.replica, atomically: true, encoding: .utf8)
            let tampered = try await door.credentials("show")
            #expect(
                tampered.status != 0 && tampered.stdout.contains("refused") && tampered.stdout.contains("signature"), "\(tampered.stdout)\(tampered.stderr)")
            let refused = try await door.simulate("3691")
            #expect(refused.frames.last?.contains("Verifier unavailable") == true, "\(refused.frames.last ?? refused.stderr)")
            #expect((try door.attempts().last?["offline_refused"] as? String)?.contains("signature") == true)
        }
    }

    /// `decision user` of the attempts the verifier stored with `offline: true`, oldest first.
    func offlineAttempts(_ site: AccessRulesEndToEndTests.Site) async throws -> [String] {
        try await site.eventRecords().filter { $0["type"] as? String == "attempt" && $0["offline"] as? Bool == true }.map { record in
            [record["decision"], record["user"]].compactMap { $0 as? String }.joined(separator: " ")
        }
    }
}
