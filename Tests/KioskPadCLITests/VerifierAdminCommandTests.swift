import Foundation
import KeypadTestSupport
import Testing

/// `kioskpad verifier admin`: the site console's administrators, and `serve` starting the
/// console on its own listener.
@Suite("Verifier admin command and the console listener", .serialized, .heavy)
struct VerifierAdminCommandTests {
    @Test func administratorsAreAddedOnceListedByNameAndRemoved() async throws {
        let directory = try await VerifierProcess.prepare(pin: "3691")
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("verifier.yaml").path
        let short = try await CLI.run(["verifier", "admin", "add", "alice", "--role", "owner", "--config", config], stdin: "too short\n")
        #expect(short.status == 2 && short.stderr.contains("the password must be 12 to 256 bytes of UTF-8 on one line"), "\(short.stderr)")
        let bad = try await CLI.run(["verifier", "admin", "add", "al ice", "--role", "owner", "--config", config], stdin: "correct horse battery\n")
        #expect(bad.status != 0 && bad.stderr.contains("administrator name 'al ice' must be 1-64 of letters"), "\(bad.stderr)")
        let added = try await CLI.run(["verifier", "admin", "add", "alice", "--role", "owner", "--config", config], stdin: "correct horse battery\n")
        #expect(added.status == 0 && added.stdout.contains("administrator 'alice' (owner) added to"), "\(added.stderr)")
        let again = try await CLI.run(["verifier", "admin", "add", "alice", "--role", "owner", "--config", config], stdin: "another long password\n")
        #expect(again.status == 2 && again.stderr.contains("administrator 'alice' is already in"), "\(again.stderr)")
        // A role is named, and checked against the roles there are.
        let noRole = try await CLI.run(["verifier", "admin", "add", "bob", "--config", config], stdin: "correct horse battery\n")
        #expect(noRole.status == 2 && noRole.stderr.contains("--role"), "\(noRole.stderr)")
        let badRole = try await CLI.run(["verifier", "admin", "add", "bob", "--role", "janitor", "--config", config], stdin: "correct horse battery\n")
        #expect(badRole.status == 2 && badRole.stderr.contains("janitor is not a role (use owner, administrator, user-manager, host, guard, auditor)"))
        let guardAdded = try await CLI.run(["verifier", "admin", "add", "bob", "--role", "guard", "--config", config], stdin: "correct horse battery\n")
        #expect(guardAdded.status == 0 && guardAdded.stdout.contains("administrator 'bob' (guard) added"), "\(guardAdded.stderr)")
        #expect(try await CLI.run(["verifier", "admin", "list", "--config", config]).stdout == "alice\towner\nbob\tguard\n")
        let promoted = try await CLI.run(["verifier", "admin", "role", "bob", "auditor", "--config", config])
        #expect(promoted.status == 0 && promoted.stdout.contains("administrator 'bob' is now auditor"), "\(promoted.stderr)")
        #expect(try await CLI.run(["verifier", "admin", "role", "nobody", "auditor", "--config", config]).status == 2)
        #expect(try await CLI.run(["verifier", "admin", "list", "--config", config]).stdout == "alice\towner\nbob\tauditor\n")
        let roles = try await CLI.run(["verifier", "roles"])
        #expect(roles.status == 0 && roles.stdout.contains("| `users.change` | yes | yes | yes |  |  |  |"), "\(roles.stdout)")
        let unknownGroup = try await CLI.run(
            ["verifier", "admin", "add", "carl", "--role", "guard", "--door-groups", "building-c", "--config", config], stdin: "correct horse battery\n")
        #expect(unknownGroup.status == 2 && unknownGroup.stderr.contains("--door-groups: no door group building-c (there are: none)"), "\(unknownGroup.stderr)")
        #expect(try await CLI.run(["verifier", "door-group", "set", "building-b", "--doors", "b-front", "--config", config]).status == 0)
        let scoped = try await CLI.run(
            ["verifier", "admin", "add", "carl", "--role", "guard", "--door-groups", "building-b", "--config", config], stdin: "correct horse battery\n")
        #expect(scoped.status == 0, "\(scoped.stderr)")
        #expect(try await CLI.run(["verifier", "admin", "list", "--config", config]).stdout.contains("carl\tguard\tdoor_groups=building-b\n"))
        let notAGuard = try await CLI.run(["verifier", "admin", "role", "carl", "auditor", "--door-groups", "building-b", "--config", config])
        #expect(
            notAGuard.status == 2 && notAGuard.stderr.contains("only guard, user-manager may be limited to door groups, not auditor"), "\(notAGuard.stderr)")
        #expect(try await CLI.run(["verifier", "admin", "remove", "carl", "--config", config]).status == 0)
        #expect(try await CLI.run(["verifier", "admin", "remove", "bob", "--config", config]).status == 0)
        // The hash in the database is the slow one; the password is nowhere.
        let stored = try await CLI.runTool(
            "/usr/bin/env",
            [
                "python3", "-c", "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT hash FROM kioskpad_admins').fetchone()[0])",
                directory.appendingPathComponent("state/verifier.sqlite3").path,
            ])
        #expect(stored.hasPrefix("$pbkdf2-sha256$i=600000$") && !stored.contains("correct horse"))
        let totp = try await CLI.run(["verifier", "admin", "totp", "alice", "--config", config])
        #expect(totp.status == 0 && totp.stdout.hasPrefix("otpauth://totp/KioskPad%20console:alice?secret="), "\(totp.stdout)\(totp.stderr)")
        #expect(try await CLI.run(["verifier", "admin", "totp", "nobody", "--config", config]).status == 2)
        let off = try await CLI.run(["verifier", "admin", "totp", "alice", "--remove", "--config", config])
        #expect(off.status == 0 && off.stdout.contains("TOTP removed"))
        let removed = try await CLI.run(["verifier", "admin", "remove", "alice", "--config", config])
        #expect(removed.status == 0 && removed.stdout.contains("administrator 'alice' removed"))
        #expect(try await CLI.run(["verifier", "admin", "remove", "alice", "--config", config]).status == 2)
    }

    @Test func serveStartsTheConsoleOnItsOwnListenerOnlyWhenEnabled() async throws {
        let directory = try await VerifierProcess.prepare(pin: "3691", extraSettings: "  console:\n    enabled: true\n    listen: 127.0.0.1:0\n")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await VerifierProcess(directory: directory)
        defer { server.stop() }
        let console = try #require(server.consoleURL)
        let login = try await CLI.runTool("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", console + "login"])
        #expect(login == "200", "\(console)")
        let doorsListener = try await CLI.runTool(
            "/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(server.port)/console/login"])
        #expect(doorsListener == "404", "the doors' listener serves no console")
    }

    @Test func overItsOwnTLSTheConsoleSendsSecureCookiesAndABadKeyIsNamed() async throws {
        let directory = try await VerifierProcess.prepare(
            pin: "3691", extraSettings: "  console:\n    enabled: true\n    listen: 127.0.0.1:0\n    tls: {cert_file: console.pem, key_file: console.key}\n")
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("verifier.yaml").path
        try "not a key\n".write(to: directory.appendingPathComponent("console.key"), atomically: true, encoding: .utf8)
        try "not a certificate\n".write(to: directory.appendingPathComponent("console.pem"), atomically: true, encoding: .utf8)
        let refused = try await CLI.run(["verifier", "serve", "--config", config])
        #expect(refused.status == 2 && refused.stderr.contains("server.console.tls: cannot use"), "\(refused.stderr)")
        _ = try await CLI.runTool(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2", "-subj", "/CN=localhost",
                "-keyout", directory.appendingPathComponent("console.key").path, "-out", directory.appendingPathComponent("console.pem").path,
            ])
        let server = try await VerifierProcess(directory: directory)
        defer { server.stop() }
        let console = try #require(server.consoleURL)
        #expect(console.hasPrefix("https://127.0.0.1:"))
        let headers = try await CLI.runTool("/usr/bin/curl", ["-sk", "-D", "-", "-o", "/dev/null", console + "login"])
        #expect(headers.contains("HTTP/1.1 200") && headers.contains("; Secure"), "\(headers)")
    }
}
