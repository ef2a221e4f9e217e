import Foundation
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import Testing

/// `verifier serve`'s `POST /v1/credentials` over loopback, checked with the key
/// `verifier public-key` prints: what a terminal with `verifier.offline` will pin.
@Suite("Credential replicas end to end", .serialized, .heavy)
struct CredentialsEndToEndTests {
    @Test func aSignedRequestGetsAReplicaThatThePrintedKeyVerifies() async throws {
        let directory = try await VerifierProcess.prepare(pin: "3691")
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("verifier.yaml").path
        let printed = try await CLI.run(["verifier", "public-key", "--config", config])
        #expect(printed.status == 0 && printed.stdout.hasPrefix("ed25519:"), "\(printed.stderr)")
        let key = try ReplicaPublicKey(parsing: printed.stdout)
        #expect(try await CLI.run(["verifier", "public-key", "--config", config]).stdout == printed.stdout, "made once, kept")
        let server = try await VerifierProcess(directory: directory)
        defer { server.stop() }
        func ask(have: Int64, secret: WebhookSecret?) async throws -> LoopbackHTTP.Answer {
            let body = Array("{\"terminal_id\":\"front-door\",\"have_version\":\(have)}".utf8)
            let headers = secret.map { WebhookSignature.headers(id: "msg_\(UUID().uuidString)", body: body, secret: $0) } ?? []
            return try await LoopbackHTTP.post(port: server.port, path: "/v1/credentials", body: body, headers: headers)
        }
        let answer = try await ask(have: 0, secret: try server.secret)
        #expect(answer.status == 200, "\(answer.status) \(answer.body)")
        guard case .replica(let replica) = try SignedReplica(json: Array(answer.body.utf8)).open(with: key) else {
            Issue.record("expected a whole replica")
            return
        }
        #expect(replica.entries.map(\.user) == ["dana"] && replica.entries[0].hash.matches(SecretDigits(ascii: "3691")!))
        #expect(!answer.body.contains("3691"))
        let again = try await ask(have: replica.version, secret: try server.secret)
        guard case .confirmation(_, let version, _) = try SignedReplica(json: Array(again.body.utf8)).open(with: key) else {
            Issue.record("expected a confirmation")
            return
        }
        #expect(version == replica.version && again.body.utf8.count < 400)
        #expect(try await ask(have: 0, secret: nil).status == 401)
        // A change of who may enter moves the version.
        let added = try await CLI.run(["verifier", "user", "add", "erik", "--iterations", "1000", "--config", config], stdin: "4821\n")
        #expect(added.status == 0)
        guard
            case .replica(let newer) = try SignedReplica(json: Array(try await ask(have: replica.version, secret: try server.secret).body.utf8)).open(with: key)
        else {
            Issue.record("expected a newer replica")
            return
        }
        #expect(newer.version > replica.version && newer.entries.map(\.user) == ["dana", "erik"])
    }
}
