import Foundation
import KeypadTestSupport
import KioskPadCore
import Testing

/// The commands an installer and kioskpad.service use around `run`: `door off`,
/// `config check --with-files`, `pin hash --confirm`.
@Suite("door off, config check --with-files, pin hash --confirm", .heavy)
struct DoorAndSetupCommandTests {
    func temporaryFile(_ text: String, name: String = "config.yaml") throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kp-setup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func versionNamesTheReleaseAndTheLibgpiodAPI() async throws {
        let result = try await CLI.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("kioskpad \(KioskPadVersion.version), built for libgpiod "), "\(result.stdout)")
        #expect(result.stdout.contains(" API)"), "\(result.stdout)")
    }

    @Test func doorOffWithoutOutputsSaysSoAndSucceeds() async throws {
        let result = try await CLI.run(["door", "off", "--config", "config/simulate.yaml"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("configures no door.relay or feedback outputs"))
    }

    @Test func doorOffNamesTheRelayKeyWhenTheChipIsMissing() async throws {
        let config = try temporaryFile("door:\n  relay: {chip: no-such-chip-kp, line: 26}\nentry:\n  typo_here: 1\n")
        let result = try await CLI.run(["door", "off", "--config", config])
        #expect(result.status == 1)
        #expect(result.stderr.contains("door.relay.chip: no GPIO chip 'no-such-chip-kp'"), "\(result.stderr)")
        #expect(!result.stderr.contains("typo_here"), "problems outside door/feedback must not stop door off")
    }

    @Test func doorOffRefusesABrokenRelaySetting() async throws {
        let config = try temporaryFile("door:\n  relay: {chip: gpiochip0}\n")
        let result = try await CLI.run(["door", "off", "--config", config])
        #expect(result.status == 2)
        #expect(result.stderr.contains("door.relay: needs chip and line"))
    }

    @Test func configCheckWithFilesFailsOnAnEmptyUsersFileAsTheFirstStartWould() async throws {
        let users = try temporaryFile("# no users yet\n", name: "users")
        let config = try temporaryFile("verifier:\n  kind: local\n  users_file: \(users)\n")
        #expect(try await CLI.run(["config", "check", config]).status == 0)
        let result = try await CLI.run(["config", "check", "--with-files", config])
        #expect(result.status == 2)
        #expect(result.stderr.contains("verifier.users_file: \(users) lists no users"), "\(result.stderr)")
        let hash = try await CLI.run(["pin", "hash", "--user", "alice", "--iterations", "1000"], stdin: "2580\n")
        try (hash.stdout).write(toFile: users, atomically: true, encoding: .utf8)
        let ready = try await CLI.run(["config", "check", "--with-files", config])
        #expect(ready.status == 0)
        #expect(ready.stdout == "ok\n")
    }

    @Test func configCheckWithFilesWarnsOfAStateDirectoryInMemory() async throws {
        let state = "/dev/shm/kp-state-\(UUID())"
        let config = try temporaryFile(
            "state_dir: \(state)\nverifier:\n  kind: http\n  url: https://verifier.example/verify\n  secret_credential: verifier-secret\n")
        let result = try await CLI.run(["config", "check", "--with-files", config])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasSuffix("ok\n"))
        #expect(
            result.stderr.contains("warning: state_dir: \(state) (judged by /dev/shm, the nearest directory that exists) is in memory (tmpfs)"),
            "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: state), "the check makes nothing")
    }

    @Test func configCheckWithFilesLeavesSystemdCredentialsToSystemd() async throws {
        let config = try temporaryFile("verifier:\n  kind: http\n  url: https://verifier.example/verify\n  secret_credential: verifier-secret\n")
        let result = try await CLI.run(["config", "check", "--with-files", config])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("note: verifier.secret_credential 'verifier-secret' is read at start"))
    }

    @Test func pinHashConfirmRefusesTwoDifferentPINs() async throws {
        let mismatch = try await CLI.run(["pin", "hash", "--user", "bob", "--confirm", "--iterations", "1000"], stdin: "2580\n2581\n")
        #expect(mismatch.status == 2)
        #expect(mismatch.stdout.isEmpty)
        #expect(mismatch.stderr.contains("the two PINs differ; nothing was written"))
        let match = try await CLI.run(["pin", "hash", "--user", "bob", "--confirm", "--iterations", "1000"], stdin: "2580\n2580\n")
        #expect(match.status == 0)
        #expect(match.stdout.hasPrefix("bob:$pbkdf2-sha256$i=1000$"))
        #expect(!match.stdout.contains("2580") && !match.stderr.contains("2580"))
    }
}
