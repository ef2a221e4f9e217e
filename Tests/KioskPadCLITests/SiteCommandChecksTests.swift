import Foundation
import KeypadTestSupport
import Testing

/// What a site administrator met with the `kioskpad verifier` commands (issue 66): values
/// parsed strictly, door ids checked against the doors the site knows, removals of what is
/// not there refused alike, and every change one audit record of one shape. Each runs the
/// real binary against a SQLite site made by ``VerifierProcess/prepare(pin:extraSettings:)``.
@Suite("Site commands: strict values, known doors, one audit record per change", .serialized, .heavy)
struct SiteCommandChecksTests {
    /// A site with dana (PIN 3691) and a schedule `opening`.
    final class Site {
        let directory: URL
        var config: String { directory.appendingPathComponent("verifier.yaml").path }

        init() async throws {
            directory = try await VerifierProcess.prepare(pin: "3691")
            #expect(try await cli(["verifier", "schedule", "set", "opening", "mon-fri 08:00-18:00"]).status == 0)
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        func cli(_ arguments: [String], stdin: String = "") async throws -> CLI.Result {
            try await CLI.run(arguments + ["--config", config], stdin: stdin)
        }

        /// The audit's records, oldest first, as JSON objects of strings.
        func audit() async throws -> [[String: String]] {
            let rows = try await CLI.runTool(
                "/usr/bin/env",
                [
                    "python3", "-c",
                    "import sqlite3, sys\nfor (r,) in sqlite3.connect(sys.argv[1]).execute('SELECT record FROM kioskpad_audit ORDER BY id'): print(r)",
                    directory.appendingPathComponent("state/verifier.sqlite3").path,
                ])
            return try rows.split(separator: "\n").map { line in
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String] ?? [:]
            }
        }

        /// The administrators' changes in the audit (records with an `action`), oldest first.
        func changes() async throws -> [[String: String]] {
            try await audit().filter { $0["action"] != nil }
        }
    }

    @Test func holidayHoursAndDatesAreParsedStrictlyAndNothingIsStoredOnAnError() async throws {
        let site = try await Site()
        for hours in ["12:00", "noon-24:00", "12", "", "12:00-", "schedule=hh-now", "13:00-12:00", "12:00-25:00"] {
            let refused = try await site.cli(["verifier", "holiday", "set", "2026-12-24", "--hours", hours])
            #expect(refused.status == 2, "--hours '\(hours)': \(refused.stdout)")
            #expect(refused.stderr.contains("--hours '\(hours)' is not its hours") && refused.stderr.contains("HH:MM-HH:MM"), "\(refused.stderr)")
        }
        #expect(try await site.cli(["verifier", "holiday", "list"]).stdout == "", "nothing was stored")
        let noon = try await site.cli(["verifier", "holiday", "set", "2026-12-24", "--hours", "12:00-24:00", "--label", "Christmas Eve"])
        #expect(noon.status == 0, "\(noon.stderr)")
        #expect(try await site.cli(["verifier", "holiday", "list"]).stdout == "2026-12-24 12:00-24:00 Christmas Eve\n")
        for command in [["set", "2026-02-30"], ["remove", "2026-02-30"]] {
            let missing = try await site.cli(["verifier", "holiday"] + command)
            #expect(missing.status == 2 && missing.stderr.contains("'2026-02-30' is not a day of the calendar"), "\(missing.stderr)")
        }
        let malformed = try await site.cli(["verifier", "holiday", "set", "24.12.2026"])
        #expect(malformed.status == 2 && malformed.stderr.contains("'24.12.2026' is not YYYY-MM-DD"), "\(malformed.stderr)")
    }

    @Test func aDoorNoDoorHasUsedIsKeptButSaidSo() async throws {
        let site = try await Site()
        let commands: [(arguments: [String], door: String)] = [
            (["verifier", "mode", "set", "lockdown", "--door", "frnot"], "frnot"),
            (["verifier", "card-pin", "set", "nosuchdoor"], "nosuchdoor"),
            (["verifier", "unlock", "set", "lobby", "opening"], "lobby"),
            (["verifier", "code", "issue", "--user", "dana", "--door", "side"], "side"),
            (["verifier", "user", "set", "dana", "--doors", "front-door,back"], "back"),
        ]
        for (arguments, door) in commands {
            let result = try await site.cli(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("warning: no door '\(door)' has reported to this site yet"), "\(arguments): \(result.stderr)")
        }
        #expect(try await site.cli(["verifier", "card-pin", "list"]).stdout == "nosuchdoor always\n", "kept")
        // A door with its own secret is known: no warning.
        #expect(try await site.cli(["verifier", "terminal", "add", "front-door"]).status == 0)
        let known = try await site.cli(["verifier", "card-pin", "set", "front-door"])
        #expect(known.status == 0 && !known.stderr.contains("warning"), "\(known.stderr)")
    }

    @Test func removingWhatIsNotThereIsRefusedAlikeAndLeavesNoAuditRecord() async throws {
        let site = try await Site()
        let before = try await site.changes().count
        let cases: [(arguments: [String], says: String)] = [
            (["verifier", "mode", "clear", "--door", "nosuchdoor"], "door 'nosuchdoor' has no mode of its own"),
            (["verifier", "unlock", "remove", "nosuchdoor"], "door 'nosuchdoor' has no unlock schedule"),
            (["verifier", "card-pin", "remove", "nosuchdoor"], "door 'nosuchdoor' does not ask for card and PIN"),
            (["verifier", "holiday", "remove", "2026-12-25"], "no holiday on 2026-12-25"),
            (["verifier", "lockout", "clear", "--door", "nosuchdoor"], "--door 'nosuchdoor' has no lockout state"),
            (["verifier", "terminal", "remove", "nosuchdoor"], "door 'nosuchdoor' has no secret of its own"),
        ]
        for (arguments, says) in cases {
            let refused = try await site.cli(arguments)
            #expect(refused.status == 2 && refused.stderr.contains(says), "\(arguments): \(refused.status) \(refused.stderr)")
        }
        #expect(try await site.changes().count == before, "a refused change is not audited")
        // Removing what is there says what was done, unlike the refusal.
        #expect(try await site.cli(["verifier", "unlock", "set", "lobby", "opening"]).status == 0)
        let removed = try await site.cli(["verifier", "unlock", "remove", "lobby"])
        #expect(removed.status == 0 && removed.stdout == "door lobby: unlock schedule removed\n", "\(removed.stdout)")
        #expect(try await site.cli(["verifier", "mode", "set", "lockdown", "--door", "lobby"]).status == 0)
        #expect(try await site.cli(["verifier", "mode", "clear", "--door", "lobby"]).status == 0)
    }

    @Test func aUnknownUserIsNamedWithoutAnOptionTheCommandDoesNotHave() async throws {
        let site = try await Site()
        let enrol = try await site.cli(["verifier", "user", "enrol-code", "nosuchuser"])
        #expect(enrol.status == 2 && enrol.stderr.contains("no user 'nosuchuser' in") && !enrol.stderr.contains("--user"), "\(enrol.stderr)")
        let code = try await site.cli(["verifier", "code", "issue", "--user", "nosuchuser"])
        #expect(code.status == 2 && code.stderr.contains("--user: no user 'nosuchuser' in"), "\(code.stderr)")
    }

    @Test func userListShowsResponderAndStaffMarks() async throws {
        let site = try await Site()
        #expect(try await site.cli(["verifier", "user", "set", "dana", "--responder", "yes", "--staff", "yes"]).status == 0)
        let list = try await site.cli(["verifier", "user", "list"]).stdout
        #expect(list == "dana pin doors=all schedule=always valid=always enabled responder staff\n", "\(list)")
    }

    @Test func everyCommandLineChangeIsOneAuditRecordOfTheConsolesShape() async throws {
        let site = try await Site()
        let steps: [(arguments: [String], stdin: String, action: String, fields: [String: String])] = [
            (
                ["verifier", "user", "add", "erik", "--iterations", "1000", "--schedule", "opening"], "4821\n", "user_add",
                ["user": "erik", "rule": "schedule=opening"]
            ),
            (["verifier", "user", "set", "erik", "--staff", "yes"], "", "user_rule", ["user": "erik"]),
            (["verifier", "user", "disable", "erik"], "", "user_disable", ["user": "erik"]),
            (["verifier", "user", "enable", "erik"], "", "user_enable", ["user": "erik"]),
            (["verifier", "user", "set-pin", "erik", "--iterations", "1000"], "5930\n", "user_pin", ["user": "erik"]),
            (["verifier", "user", "add-card", "erik", "--iterations", "1000"], "00789888\n", "card_add", ["user": "erik"]),
            (["verifier", "user", "remove-card", "erik"], "00789888\n", "card_remove", ["user": "erik"]),
            (["verifier", "code", "issue", "--user", "erik"], "", "code_issue", ["user": "erik", "door": "any"]),
            (["verifier", "user", "enrol-code", "erik"], "", "enrol_code_issue", ["user": "erik"]),
            (["verifier", "schedule", "set", "late", "mon-fri 18:00-22:00"], "", "schedule_set", ["schedule": "late"]),
            (["verifier", "holiday", "set", "2026-12-25"], "", "holiday_set", ["date": "2026-12-25", "rule": ""]),
            (["verifier", "holiday", "remove", "2026-12-25"], "", "holiday_remove", ["date": "2026-12-25"]),
            (["verifier", "mode", "set", "lockdown"], "", "mode_set", ["mode": "lockdown", "scope": "site"]),
            (["verifier", "mode", "offline-check", "300"], "", "mode_check_set", ["seconds": "300"]),
            (
                ["verifier", "card-pin", "set", "front-door", "--schedule", "opening"], "", "card_pin_set",
                ["terminal_id": "front-door", "schedule": "opening"]
            ),
            (["verifier", "card-pin", "remove", "front-door"], "", "card_pin_set", ["terminal_id": "front-door", "schedule": "none"]),
            (["verifier", "unlock", "set", "front-door", "opening", "--first-in"], "", "unlock_set", ["terminal_id": "front-door", "first_in": "yes"]),
            (["verifier", "terminal", "add", "front-door"], "", "door_add", ["terminal_id": "front-door"]),
            (["verifier", "terminal", "remove", "front-door"], "", "door_remove", ["terminal_id": "front-door"]),
            (["verifier", "user", "remove", "erik"], "", "user_remove", ["user": "erik"]),
        ]
        for step in steps {
            let before = try await site.changes()
            let result = try await site.cli(step.arguments, stdin: step.stdin)
            #expect(result.status == 0, "\(step.arguments): \(result.stderr)")
            let added = Array(try await site.changes().dropFirst(before.count))
            #expect(added.count == 1, "\(step.arguments): one record, got \(added)")
            guard let record = added.first else { continue }
            #expect(record["action"] == step.action, "\(record)")
            #expect(record["source"] == "cli" && record["admin"]?.hasPrefix("cli:") == true, "\(record)")
            #expect(record["time"].map { $0.hasSuffix("Z") && $0.contains("T") } == true, "\(record)")
            for (key, value) in step.fields { #expect(record[key] == value, "\(step.action).\(key): \(record)") }
        }
        // Never a PIN, card number or code typed above, in any record. UUIDs are taken out first:
        // the site's directory in `users_import`'s `file` is named by one, which may hold any four digits.
        let text = redactingUUIDs(try await site.audit().map { "\($0)" }.joined())
        for secret in ["4821", "5930", "00789888"] { #expect(!text.contains(secret), "\(secret) in the audit") }
    }
}
