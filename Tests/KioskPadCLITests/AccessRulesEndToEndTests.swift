import Foundation
import KeypadTestSupport
import KioskPadAccess
import Testing
import VerifierTestSupport

/// Who may enter where and when, as a site sets it up: `kioskpad verifier user|schedule|site|
/// terminal` commands, `verifier serve` on SQLite and on a real PostgreSQL, and `simulate`
/// as the terminal at two doors; then the same rules exported to a terminal's
/// `verifier.kind: local`.
@Suite("Access rules end to end", .serialized, .heavy)
struct AccessRulesEndToEndTests {
    enum Store: String, CaseIterable, Sendable { case sqlite, postgres }

    /// A verifier directory (dana 3691, bob 1470 at front-door only) on `store`.
    final class Site: AsyncClosing {
        let directory: URL
        let postgres: PostgresVerifierTests.Site?
        var config: String { directory.appendingPathComponent("verifier.yaml").path }

        init(_ store: Store) async throws {
            if store == .postgres {
                let site = try await PostgresVerifierTests.Site()
                postgres = site
                directory = site.directory
                let dana = try await cli(["verifier", "user", "add", "dana", "--iterations", "1000"], stdin: "3691\n")
                #expect(dana.status == 0, "\(dana.stderr)")
            } else {
                postgres = nil
                directory = try await VerifierProcess.prepare(pin: "3691")
            }
            #expect(try await cli(["verifier", "site", "set", "--time-zone", "UTC"]).status == 0)
            let bob = try await cli(["verifier", "user", "add", "bob", "--doors", "front-door", "--iterations", "1000"], stdin: "1470\n")
            #expect(bob.status == 0 && bob.stdout.contains("(doors=front-door)"), "\(bob.stdout)\(bob.stderr)")
        }

        func cli(_ arguments: [String], stdin: String = "") async throws -> CLI.Result {
            try await CLI.run(arguments + ["--config", config], stdin: stdin)
        }

        /// `simulate` as door `door`, signing with `secretFile` (default the site secret); the last frame.
        func simulate(_ pin: String, at door: String, port: Int, secretFile: String = "secret") async throws -> String {
            let terminal = directory.appendingPathComponent("terminal-\(UUID()).yaml")
            defer { try? FileManager.default.removeItem(at: terminal) }
            try """
            terminal_id: \(door)
            verifier:
              kind: http
              url: http://127.0.0.1:\(port)/verify
              secret_file: \(secretFile)
            """.write(to: terminal, atomically: true, encoding: .utf8)
            let result = try await CLI.run(["simulate", "--config", terminal.path, "--display", "plain"], stdin: pin)
            return CLI.frames(result.stdout).last ?? result.stderr
        }

        /// The reasons of the denials the site decided at `/verify`, oldest first (a door's forwarded
        /// offline decisions, audited as they arrive, are left out: they may land after a later online one).
        func deniedReasons() async throws -> [String] {
            if let postgres {
                return try await postgres.database.query(
                    "SELECT record->>'reason' FROM kioskpad_audit WHERE record->>'decision' = 'denied' AND record->>'offline' IS NULL ORDER BY id"
                )
                .split(separator: "\n").map(String.init)
            }
            let records = try await SQLiteAuditReader.records(path: directory.appendingPathComponent("state/verifier.sqlite3").path)
            return records.compactMap { record in
                guard let object = try? JSONSerialization.jsonObject(with: Data(record.utf8)) as? [String: String], object["decision"] == "denied",
                    object["offline"] == nil
                else {
                    return nil
                }
                return object["reason"]
            }
        }

        /// The door events the verifier stored (each record's JSON), oldest first.
        func eventRecords() async throws -> [[String: Any]] {
            guard let postgres else { return try await Self.sqliteEventRecords(directory) }
            let lines = try await postgres.database.query("SELECT record::text FROM kioskpad_events ORDER BY at, seq").split(separator: "\n")
            return lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }

        /// ``eventRecords()`` of a site on SQLite in `directory` (callable where the site is not).
        static func sqliteEventRecords(_ directory: URL) async throws -> [[String: Any]] {
            let path = directory.appendingPathComponent("state/verifier.sqlite3").path
            let script =
                "import sqlite3, sys\nfor (record,) in sqlite3.connect(sys.argv[1]).execute('SELECT record FROM kioskpad_events ORDER BY at, seq'): print(record)"
            let lines = try await CLI.runTool("/usr/bin/python3", ["-c", script, path]).split(separator: "\n")
            return lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }

        func close() async {
            if let postgres { await postgres.close() } else { try? FileManager.default.removeItem(at: directory) }
        }
    }

    /// A daily window that is 12 hours away from now, in UTC: it never includes the test's minutes.
    static var scheduleExcludingNow: String {
        let hour = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date()).hour ?? 0
        return String(format: "daily %02d:00-%02d:00", (hour + 12) % 24, (hour + 13) % 24)
    }

    /// Yesterday's date in UTC.
    static var yesterday: String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date().addingTimeInterval(-86_400))
    }

    @Test(arguments: Store.allCases)
    func doorsSchedulesValidityAndDisableDecideThroughTheServer(_ store: Store) async throws {
        let site = try await Site(store)
        try await site.closing {
            let badSpec = try await site.cli(["verifier", "schedule", "set", "evenings", "mon-fri 18:00-21:00; sat 8:00-12:00"])
            #expect(badSpec.status == 2 && badSpec.stderr.contains("part 2 (\"sat 8:00-12:00\"): '8:00' is not a start time"), "\(badSpec.stderr)")
            #expect(try await site.cli(["verifier", "schedule", "set", "away", Self.scheduleExcludingNow]).status == 0)
            let log = site.directory.appendingPathComponent("serve.log")
            let server = try await VerifierProcess(directory: site.directory, stderr: log)
            defer { server.stop() }
            let port = server.port

            #expect(try await site.simulate("1470", at: "front-door", port: port).contains("Access granted"))
            #expect(try await site.simulate("1470", at: "back-door", port: port).contains("Access denied"))
            #expect(try await site.simulate("3691", at: "back-door", port: port).contains("Access granted"))  // dana: every door

            #expect(try await site.cli(["verifier", "user", "set", "bob", "--schedule", "away"]).status == 0)
            #expect(try await site.simulate("1470", at: "front-door", port: port).contains("Access denied"))
            let expire = try await site.cli(["verifier", "user", "set", "bob", "--schedule", "always", "--valid-until", Self.yesterday])
            #expect(expire.status == 0 && expire.stdout.contains("valid=..\(Self.yesterday)"), "\(expire.stdout)\(expire.stderr)")
            #expect(try await site.simulate("1470", at: "front-door", port: port).contains("Access denied"))
            #expect(try await site.cli(["verifier", "user", "set", "bob", "--valid-until", "none"]).status == 0)
            #expect(try await site.simulate("1470", at: "front-door", port: port).contains("Access granted"))
            #expect(try await site.cli(["verifier", "user", "disable", "bob"]).status == 0)
            let list = try await site.cli(["verifier", "user", "list"])
            #expect(list.stdout.contains("bob pin doors=front-door schedule=always valid=always disabled"), "\(list.stdout)")
            #expect(try await site.simulate("1470", at: "front-door", port: port).contains("Access denied"))
            #expect(try await site.cli(["verifier", "user", "enable", "bob"]).status == 0)
            #expect(try await site.simulate("1470", at: "front-door", port: port).contains("Access granted"))
            #expect(try await site.deniedReasons() == ["not_permitted_here", "outside_schedule", "expired", "disabled"])

            // bob's rule names front-door, which signs with the site secret: serve said so at start.
            #expect(try String(contentsOf: log, encoding: .utf8).contains("access rules name door front-door without a secret of its own"))
            // front-door gets its own secret: the site secret no longer speaks for it.
            let added = try await site.cli(["verifier", "terminal", "add", "front-door"])
            #expect(added.status == 0 && added.stdout.hasPrefix("whsec_"))
            try added.stdout.write(to: site.directory.appendingPathComponent("front-door.secret"), atomically: true, encoding: .utf8)
            #expect(try await site.simulate("1470", at: "front-door", port: port).contains("Verifier"))
            #expect(try await site.simulate("1470", at: "front-door", port: port, secretFile: "front-door.secret").contains("Access granted"))
            #expect(try await site.cli(["verifier", "terminal", "list"]).stdout.hasPrefix("front-door own secret since "))
            let quiet = site.directory.appendingPathComponent("serve-again.log")
            try await VerifierProcess(directory: site.directory, stderr: quiet).stopped()
            #expect(try !String(contentsOf: quiet, encoding: .utf8).contains("without a secret of its own"))
            #expect(try await site.cli(["verifier", "terminal", "remove", "front-door"]).status == 0)
            #expect(try await site.simulate("1470", at: "front-door", port: port).contains("Access granted"))
        }
    }

    /// What adjtimex(2) reports, asked from another process: TIME_ERROR (5) while the clock is unsynchronised.
    static func kernelClockSynchronised() async throws -> Bool {
        let state = try await CLI.runTool("/usr/bin/python3", ["-c", "import ctypes; print(ctypes.CDLL(None).adjtimex(ctypes.create_string_buffer(512)))"])
        return state.trimmingCharacters(in: .whitespacesAndNewlines) != "5"
    }

    @Test func theSameRulesDecideOnATerminalWithALocalVerifierAndAClockItMayNotTrust() async throws {
        let site = try await Site(.sqlite)
        try await site.closing {
            #expect(try await site.cli(["verifier", "schedule", "set", "open", "daily"]).status == 0)
            #expect(try await site.cli(["verifier", "user", "set", "dana", "--schedule", "open"]).status == 0)
            let users = site.directory.appendingPathComponent("terminal-users").path
            #expect(try await site.cli(["verifier", "export", "--users-file", users]).status == 0)
            let exported = try String(contentsOfFile: users, encoding: .utf8)
            #expect(exported.contains("@time_zone UTC\n@schedule open daily\n@access bob doors=front-door\n@access dana schedule=open\n"), "\(exported)")

            /// `simulate` as `door` with the exported users file; the last frame and the journal's attempt records.
            func local(_ pin: String, at door: String, trust: String) async throws -> (frame: String, journal: String) {
                let state = site.directory.appendingPathComponent("state-\(UUID())")
                let terminal = site.directory.appendingPathComponent("local.yaml")
                try """
                terminal_id: \(door)
                state_dir: \(state.path)
                clock: {trust: \(trust)}
                verifier: {kind: local, users_file: \(users)}
                """.write(to: terminal, atomically: true, encoding: .utf8)
                let result = try await CLI.run(["simulate", "--config", terminal.path, "--display", "plain"], stdin: pin)
                let journal = (try? String(contentsOf: state.appendingPathComponent("journal.jsonl"), encoding: .utf8)) ?? result.stderr
                return (CLI.frames(result.stdout).last ?? result.stderr, journal)
            }

            #expect(try await local("1470", at: "front-door", trust: "synchronised").frame.contains("Access granted"))  // no clock needed
            let elsewhere = try await local("1470", at: "back-door", trust: "synchronised")
            #expect(elsewhere.frame.contains("Access denied") && elsewhere.journal.contains("\"reason\":\"not_permitted_here\""), "\(elsewhere.journal)")
            // dana's schedule needs the clock: this kernel's clock decides whether it counts.
            let untrusted = try await local("3691", at: "front-door", trust: "synchronised")
            if try await Self.kernelClockSynchronised() {
                #expect(untrusted.frame.contains("Access granted"))
            } else {
                #expect(untrusted.frame.contains("Access denied") && untrusted.journal.contains("\"reason\":\"clock_not_trusted\""), "\(untrusted.journal)")
            }
            #expect(try await local("3691", at: "front-door", trust: "rtc").frame.contains("Access granted"))
            let badSpec = site.directory.appendingPathComponent("bad-users").path
            try (exported.replacingOccurrences(of: "@schedule open daily", with: "@schedule open daily 9-17")).write(
                toFile: badSpec, atomically: true, encoding: .utf8)
            let check = site.directory.appendingPathComponent("check.yaml")
            try "verifier: {kind: local, users_file: \(badSpec)}\n".write(to: check, atomically: true, encoding: .utf8)
            let checked = try await CLI.run(["config", "check", "--with-files", check.path])
            #expect(checked.status != 0 && checked.stderr.contains("@schedule open: part 1 (\"daily 9-17\"): '9' is not a start time"), "\(checked.stderr)")
        }
    }
}
