import Foundation
import KeypadTestSupport
import Testing
import VerifierTestSupport

/// `kioskpad verifier serve` and `kioskpad simulate --verifier` as separate processes,
/// exactly as docs/site-server.md shows them, on loopback.
@Suite("verifier serve + simulate --verifier, end to end", .serialized, .heavy)
struct VerifierEndToEndTests {
    @Test func aPINTypedInSimulateIsDecidedByTheReferenceServer() async throws {
        let directory = try await VerifierProcess.prepare(pin: "3691")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await VerifierProcess(directory: directory)
        let url = "http://127.0.0.1:\(server.port)/verify"
        let secret = directory.appendingPathComponent("secret").path
        let granted = try await CLI.run(
            ["simulate", "--display", "plain", "--verifier", url, "--verifier-secret-file", secret, "--log-level", "info"], stdin: "3691")
        let denied = try await CLI.run(["simulate", "--display", "plain", "--verifier", url, "--verifier-secret-file", secret], stdin: "8024")
        let unsigned = try await CLI.run(["simulate", "--display", "plain", "--verifier", url], stdin: "3691")
        #expect(await server.stopped() == 0)
        #expect(CLI.frames(granted.stdout).last?.contains("Access granted") == true)
        #expect(CLI.frames(denied.stdout).last?.contains("Access denied") == true)
        // The server answers 401 to an unsigned request: a verifier error, not a wrong PIN.
        #expect(CLI.frames(unsigned.stdout).last?.contains("Verifier") == true)
        #expect(!granted.stdout.contains("demo PIN"))
        let audit = try await SQLiteAuditReader.records(path: directory.appendingPathComponent("state/verifier.sqlite3").path).joined(separator: "\n")
        #expect(audit.contains("\"decision\":\"granted\"") && audit.contains("\"decision\":\"denied\"") && audit.contains("\"refusal\":\"unauthenticated\""))
        // One attempt id end to end: the terminal's two log lines and the verifier's audit.
        let ids = granted.stderr.split(separator: "\n").filter { $0.contains("attempt submitted") || $0.contains("attempt decided") }
            .compactMap { line in line.range(of: "attempt_id=").map { String(line[$0.upperBound...].prefix(36)) } }
        #expect(ids.count == 2 && Set(ids).count == 1, "\(granted.stderr)")
        #expect(audit.contains("\"attempt_id\":\"\(ids.first ?? "none")\""))
        for text in [audit, granted.stdout, granted.stderr, denied.stdout, denied.stderr].map(redactingMeasuredValues) {
            #expect(!text.contains("3691") && !text.contains("8024"))
        }
    }

    @Test func aOneTimeCodeIssuedOnTheCommandLineOpensOnce() async throws {
        let directory = try await VerifierProcess.prepare(pin: "3691")
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("verifier.yaml").path
        let issued = try await CLI.run(["verifier", "code", "issue", "--config", config, "--user", "dana", "--ttl", "10m"])
        #expect(issued.status == 0)
        let code = issued.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(code.count == 8 && code.allSatisfy(\.isNumber))
        #expect(try await CLI.run(["verifier", "code", "issue", "--config", config, "--user", "nobody"]).status == 2)
        let server = try await VerifierProcess(directory: directory)
        defer { server.stop() }
        let configFile = directory.appendingPathComponent("terminal.yaml")
        try """
        entry: {mode: code, min_length: 8, max_length: 8}
        verifier:
          kind: http
          url: http://127.0.0.1:\(server.port)/verify
          secret_file: secret
        """.write(to: configFile, atomically: true, encoding: .utf8)
        let first = try await CLI.run(["simulate", "--config", configFile.path, "--display", "plain"], stdin: code)
        let again = try await CLI.run(["simulate", "--config", configFile.path, "--display", "plain"], stdin: code)
        #expect(CLI.frames(first.stdout).last?.contains("Access granted") == true)
        #expect(CLI.frames(again.stdout).last?.contains("Access denied") == true)
        #expect(CLI.frames(first.stdout).contains { $0.contains("Enter code") })
    }

    @Test func aVerifierThatIsDownMeansVerifierUnavailable() async throws {
        let result = try await CLI.run(["simulate", "--display", "plain", "--verifier", "http://127.0.0.1:9/verify"], stdin: "3691")
        #expect(result.status == 0)
        let last = CLI.frames(result.stdout).last ?? ""
        #expect(last.contains("Verifier") && !last.contains("granted"))
    }

    @Test func configErrorsForTheHTTPVerifierNameTheKey() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("kp-http-\(UUID()).yaml")
        defer { try? FileManager.default.removeItem(at: file) }
        try "verifier:\n  kind: http\n  url: http://10.1.2.3/verify\n  secret: whsec_abc\n".write(to: file, atomically: true, encoding: .utf8)
        let result = try await CLI.run(["config", "check", file.path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("verifier.url: plain http:// to 10.1.2.3"))
        #expect(result.stderr.contains("verifier.secret: secrets are never read from the config file"))
        try "verifier:\n  kind: http\n  url: http://127.0.0.1:1/verify\n  secret_file: /nonexistent\n".write(to: file, atomically: true, encoding: .utf8)
        let missing = try await CLI.run(["simulate", "--config", file.path, "--display", "plain"], stdin: "1234")
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("verifier.secret_file: file /nonexistent"))
    }
}
