import DoorVerifierClient
import Foundation
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import Testing

/// `kioskpad verifier code issue` runs beside `kioskpad verifier serve`, both writing the
/// verifier's SQLite file. Each issued code must work exactly once, and every printed code
/// must work (with the file store before it, before that store took a file lock, 3 of 12
/// rounds granted a code twice and 6 of 96 printed codes never worked).
@Suite("One-time codes across processes", .serialized, .heavy)
struct OneTimeCodeConcurrencyTests {
    @Test func codesIssuedByConcurrentProcessesWorkExactlyOnceWhileTheServerRedeems() async throws {
        // Each code's second use is a denial from the same door; five in a row before the
        // next grant would lock door-9 out (the site's lockout, not what this test is about),
        // and every later code would be refused. 32 denials stay under 100.
        let directory = try await VerifierProcess.prepare(
            pin: "4711", extraSettings: "  code_length: 8\n  lockout:\n    max_failures: 100\n")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await VerifierProcess(directory: directory)
        defer { server.stop() }
        let port = server.port
        let config = server.config
        let verifier = try HTTPVerifier(settings: .init(url: "http://127.0.0.1:\(port)/verify", deadline: .seconds(10), secret: try server.secret))

        @Sendable func issue() async throws -> CLI.Result {
            try await Task.detached { try await CLI.run(["verifier", "code", "issue", "--config", config, "--user", "dana", "--ttl", "10m"]) }.value
        }
        @Sendable func redeemTwice(_ code: String) async -> Int {
            await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        let attempt = VerificationAttempt(terminalID: "door-9", kind: .code, value: SecretDigits(ascii: code)!)
                        if case .granted = await verifier.verify(attempt) { return true }
                        return false
                    }
                }
                var granted = 0
                for await ok in group where ok { granted += 1 }
                return granted
            }
        }

        var issued: [String] = []
        var grants: [Int] = []
        var previous: [String] = []
        for _ in 0..<4 {
            // 8 processes issue codes while the codes of the previous round are redeemed.
            async let round: [CLI.Result] = withThrowingTaskGroup(of: CLI.Result.self) { group in
                for _ in 0..<8 { group.addTask { try await issue() } }
                var results: [CLI.Result] = []
                for try await result in group { results.append(result) }
                return results
            }
            let redeemed = await withTaskGroup(of: Int.self) { group in
                for code in previous { group.addTask { await redeemTwice(code) } }
                var counts: [Int] = []
                for await count in group { counts.append(count) }
                return counts
            }
            grants += redeemed
            let results = try await round
            #expect(results.allSatisfy { $0.status == 0 }, "\(results.map(\.stderr))")
            previous = results.map { $0.stdout.trimmingCharacters(in: .whitespacesAndNewlines) }
            issued += previous
        }
        for code in previous { grants.append(await redeemTwice(code)) }
        await verifier.shutdown()

        #expect(issued.count == 32)
        #expect(issued.allSatisfy { $0.count == 8 && $0.allSatisfy(\.isNumber) })
        #expect(Set(issued).count == issued.count)
        #expect(grants.count == 32)
        #expect(grants.allSatisfy { $0 == 1 }, "every code granted exactly once: \(grants)")
    }
}
