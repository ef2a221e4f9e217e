import Foundation
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import Testing

/// `kioskpad verifier user ...` against a running `kioskpad verifier serve`, as docs/site-server.md
/// shows it: each change counts from the next attempt, without a restart.
@Suite("verifier user commands, end to end", .serialized, .heavy)
struct VerifierUserCommandTests {
    func simulate(_ server: VerifierProcess, typing value: String, mode: String = "pin") async throws -> String {
        let terminal = server.directory.appendingPathComponent("terminal-\(mode).yaml")
        let entry = mode == "pin" ? "entry: {mode: pin, min_length: 4, max_length: 4}" : "entry: {mode: code, min_length: 6, max_length: 6}"
        try """
        \(entry)
        verifier:
          kind: http
          url: http://127.0.0.1:\(server.port)/verify
          secret_file: secret
        """.write(to: terminal, atomically: true, encoding: .utf8)
        let result = try await CLI.run(["simulate", "--config", terminal.path, "--display", "plain"], stdin: value)
        return CLI.frames(result.stdout).last ?? ""
    }

    @Test func usersAddedChangedAndRemovedWhileTheServerRuns() async throws {
        let directory = try await VerifierProcess.prepare(pin: "3691")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await VerifierProcess(directory: directory)
        defer { server.stop() }
        let config = server.config
        #expect(try await simulate(server, typing: "5820").contains("Access denied"))
        let added = try await CLI.run(["verifier", "user", "add", "carol", "--config", config, "--iterations", "1000"], stdin: "5820\n")
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try await simulate(server, typing: "5820").contains("Access granted"))
        // Changing her PIN: the old one is denied, the new one granted.
        let changed = try await CLI.run(["verifier", "user", "set-pin", "carol", "--config", config, "--iterations", "1000"], stdin: "7146\n")
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(try await simulate(server, typing: "5820").contains("Access denied"))
        #expect(try await simulate(server, typing: "7146").contains("Access granted"))
        // A TOTP secret: the URI printed once gives codes the server grants.
        let totp = try await CLI.run(["verifier", "user", "totp", "carol", "--config", config])
        let uri = totp.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(uri.hasPrefix("otpauth://totp/KioskPad:carol?secret="))
        let base32 = try #require(URLComponents(string: uri)?.queryItems?.first { $0.name == "secret" }?.value)
        let code = TOTP(secret: try #require(TOTP.base32Decode(base32))).code(step: Int(Date().timeIntervalSince1970) / 30)
        #expect(try await simulate(server, typing: code, mode: "code").contains("Access granted"))
        let list = try await CLI.run(["verifier", "user", "list", "--config", config])
        #expect(list.stdout == "dana pin doors=all schedule=always valid=always enabled\ncarol pin,totp doors=all schedule=always valid=always enabled\n")
        let removed = try await CLI.run(["verifier", "user", "remove", "carol", "--config", config])
        #expect(removed.status == 0)
        #expect(try await simulate(server, typing: "7146").contains("Access denied"))
        #expect(try await simulate(server, typing: "3691").contains("Access granted"))  // dana untouched
        for output in [added, changed, list, removed].flatMap({ [$0.stdout, $0.stderr] }) {
            #expect(!output.contains("5820") && !output.contains("7146") && !output.contains("pbkdf2"))
        }
    }

    @Test func withALookupKeyUsersAreWrittenWithTagsAndFoundByThem() async throws {
        let directory = try await VerifierProcess.prepare(pin: "3691", extraSettings: "  lookup_key_file: lookup.key\n  code_length: 6\n")
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyFile = directory.appendingPathComponent("lookup.key")
        try "short\n".write(to: keyFile, atomically: true, encoding: .utf8)
        let config = directory.appendingPathComponent("verifier.yaml").path
        let refused = try await CLI.run(["verifier", "user", "add", "carol", "--config", config, "--iterations", "1000"], stdin: "5820\n")
        #expect(refused.status != 0 && refused.stderr.contains("server.lookup_key_file: a lookup key is one line of at least 32 characters"))
        try "h6Vq3yN0cQk2mS8tW1xZ4bE7rU9pL5aD\n".write(to: keyFile, atomically: true, encoding: .utf8)
        let server = try await VerifierProcess(directory: directory)
        defer { server.stop() }
        #expect(try await CLI.run(["verifier", "user", "add", "carol", "--config", config, "--iterations", "1000"], stdin: "5820\n").status == 0)
        let users = try await VerifierProcess.exportedUsers(directory)
        let carol = try #require(users.split(separator: "\n").first { $0.hasPrefix("carol:") })
        let tag = try #require(carol.split(separator: ":").last { $0.hasPrefix("tag=") })
        #expect(LookupKey.isTag(tag.dropFirst(4)))
        #expect(try await simulate(server, typing: "5820").contains("Access granted"))
        #expect(try await simulate(server, typing: "3691").contains("Access granted"))  // dana's line has no tag: still checked
        #expect(try await simulate(server, typing: "5821").contains("Access denied"))
        #expect(try await CLI.run(["verifier", "user", "set-pin", "carol", "--config", config, "--iterations", "1000"], stdin: "7146\n").status == 0)
        let changed = try await VerifierProcess.exportedUsers(directory)
        #expect(!changed.contains(String(tag)) && changed.components(separatedBy: "tag=").count == 2)
        #expect(try await simulate(server, typing: "7146").contains("Access granted"))
        // A one-time code issued with the key is found by its tag at the door (issue 78).
        let issued = try await CLI.run(["verifier", "code", "issue", "--config", config, "--user", "carol", "--ttl", "10m"])
        let code = issued.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(issued.status == 0 && code.count == 6, "\(issued.stderr)")
        let stored = try await CLI.runTool(
            "/usr/bin/python3",
            [
                "-c", "import sqlite3, sys\nprint(*sqlite3.connect(sys.argv[1]).execute('SELECT lookup_tag FROM kioskpad_codes').fetchone())",
                directory.appendingPathComponent("state/verifier.sqlite3").path,
            ])
        let codeKey = try LookupKey(text: String(contentsOf: keyFile, encoding: .utf8))
        #expect(stored.trimmingCharacters(in: .whitespacesAndNewlines) == codeKey.codeTag(SecretDigits(ascii: code)!), "the code's row carries its tag")
        #expect(try await simulate(server, typing: code, mode: "code").contains("Access granted"))
        #expect(try await simulate(server, typing: code, mode: "code").contains("Access denied"))
        // A card and a duress PIN get tags of their own kind, and are found by them.
        #expect(try await CLI.run(["verifier", "user", "add-card", "carol", "--config", config, "--iterations", "1000"], stdin: "00065537\n").status == 0)
        #expect(try await CLI.run(["verifier", "user", "set-duress", "carol", "--config", config, "--iterations", "1000"], stdin: "9517\n").status == 0)
        let key = try LookupKey(text: String(contentsOf: keyFile, encoding: .utf8))
        let file = try UsersFile(parsing: try await VerifierProcess.exportedUsers(directory), source: "export")
        #expect(file.users.filter { $0.lookupTag != nil }.count == 3)
        #expect(file.match(SecretDigits(ascii: "00065537")!, kind: .card, lookup: key)?.name == "carol")
        #expect(file.match(SecretDigits(ascii: "9517")!, kind: .pin, lookup: key).map { "\($0.name) \($0.duress)" } == "carol true")
        #expect(try await simulate(server, typing: "9517").contains("Access granted"))
        let removed = try await CLI.run(["verifier", "user", "remove-card", "carol", "--config", config], stdin: "00065537\n")
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(
            try UsersFile(parsing: try await VerifierProcess.exportedUsers(directory), source: "export").match(card: SecretDigits(ascii: "00065537")!) == nil)
    }

    @Test func mistakesAreClearAndChangeNothing() async throws {
        let directory = try await VerifierProcess.prepare(pin: "3691")
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("verifier.yaml").path
        let before = try await VerifierProcess.exportedUsers(directory)
        let twice = try await CLI.run(["verifier", "user", "add", "dana", "--config", config, "--iterations", "1000"], stdin: "1111\n")
        #expect(twice.status == 2 && twice.stderr.contains("user 'dana' is already in") && twice.stderr.contains("set-pin"))
        let badName = try await CLI.run(["verifier", "user", "add", "da na", "--config", config], stdin: "1111\n")
        #expect(badName.status == 2 && badName.stderr.contains("user name 'da na' must be 1-64 of letters"))
        let badPIN = try await CLI.run(["verifier", "user", "add", "erin", "--config", config, "--iterations", "1000"], stdin: "12a4\n")
        #expect(badPIN.status == 2 && badPIN.stderr.contains("the PIN must be"))
        let nobody = try await CLI.run(["verifier", "user", "set-pin", "zoe", "--config", config, "--iterations", "1000"], stdin: "1111\n")
        #expect(nobody.status == 2 && nobody.stderr.contains("no user 'zoe' with a PIN"))
        #expect(try await CLI.run(["verifier", "user", "remove", "zoe", "--config", config]).status == 2)
        #expect(try await VerifierProcess.exportedUsers(directory) == before)
    }
}
