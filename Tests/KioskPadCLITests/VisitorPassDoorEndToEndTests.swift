import Foundation
import KeypadTestSupport
import Testing

/// Visitor passes issued with `kioskpad verifier visitor issue` and typed at a real door
/// (`simulate` in code mode) against `verifier serve`: a counted pass opens its number of
/// times, one not yet valid and one revoked open nothing, and a door deciding from its replica
/// while the site is stopped refuses every pass (the offline rule) without using it up.
extension OfflineDoorEndToEndTests {
    /// `days` from now in UTC, to the minute (the site's zone is UTC).
    static func siteTime(days: Double) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm"
        return formatter.string(from: Date().addingTimeInterval(days * 86_400))
    }

    @Test(arguments: AccessRulesEndToEndTests.Store.allCases)
    func visitorPassesOpenTheirUsesOnlineAndNothingOffline(_ store: AccessRulesEndToEndTests.Store) async throws {
        let site = try await AccessRulesEndToEndTests.Site(store)
        try await site.closing {
            let door = try await Door(site)
            var server = try await VerifierProcess(directory: site.directory)
            let codeEntry = "entry: {mode: code, min_length: 8, max_length: 8}"
            try door.configure(port: server.port, entry: codeEntry)
            let issue = { (extra: [String]) async throws -> String in
                let result = try await site.cli(
                    ["verifier", "visitor", "issue", "--visitor", "Ada Lovelace", "--host", "bob", "--doors", "front-door"] + extra)
                #expect(result.status == 0, "\(extra): \(result.stderr)")
                #expect(result.stderr.contains("visitor pass") && result.stderr.contains("host bob"), "\(result.stderr)")
                return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            let until = Self.siteTime(days: 2)

            // Two uses, then no more.
            let counted = try await issue(["--until", until, "--uses", "2"])
            #expect(counted.count == 8)
            for _ in 0..<2 { #expect(try await door.simulate(counted).frames.last?.contains("Access granted") == true) }
            #expect(try await door.simulate(counted).frames.last?.contains("Access denied") == true)
            let listed = try await site.cli(["verifier", "visitor", "list", "--all"])
            #expect(listed.stdout.contains("Ada Lovelace\thost=bob\tfront-door") && listed.stdout.contains("uses=2 of 2\tused_up"), "\(listed.stdout)")
            #expect(!listed.stdout.contains(counted), "a code is printed once")

            // Not yet valid: its window starts tomorrow.
            let tomorrow = try await issue(["--from", Self.siteTime(days: 1), "--until", until])
            #expect(try await door.simulate(tomorrow).frames.last?.contains("Access denied") == true)
            #expect(try await site.deniedReasons().last == "not_yet_valid")

            // Revoked: refused at once.
            let revocable = try await issue(["--until", until, "--uses", "unlimited"])
            #expect(try await door.simulate(revocable).frames.last?.contains("Access granted") == true)
            let id = try #require(try await site.cli(["verifier", "visitor", "list"]).stdout.split(separator: "\n").first?.split(separator: "\t").first)
            #expect(try await site.cli(["verifier", "visitor", "revoke", String(id)]).status == 0)
            #expect(try await door.simulate(revocable).frames.last?.contains("Access denied") == true)

            // Offline: a code is never decided by a door alone, so the door stays shut, says the
            // site is unavailable, and no use is counted.
            let unlimited = try await issue(["--until", until, "--uses", "unlimited"])
            #expect(try await door.credentials("sync").status == 0)
            await server.stopped()
            #expect(try await door.simulate(unlimited).frames.last?.contains("Verifier unavailable") == true)
            let refused = try #require(try door.attempts().last)
            #expect(refused["decision"] as? String == "error" && (refused["offline_refused"] as? String)?.contains("visitor passes") == true, "\(refused)")
            server = try await VerifierProcess(directory: site.directory)
            defer { server.stop() }
            try door.configure(port: server.port, entry: codeEntry)
            #expect(try await door.simulate(unlimited).frames.last?.contains("Access granted") == true)
            let after = try await site.cli(["verifier", "visitor", "list"])
            #expect(after.stdout.contains("uses=1 (unlimited)\tactive"), "one use, online: \(after.stdout)")
        }
    }
}
