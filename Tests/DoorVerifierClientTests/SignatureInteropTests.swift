import DoorVerifierClient
import Foundation
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import SiteCore
import Testing
import VerifierTestSupport

/// Signatures must interoperate with an independent Standard Webhooks implementation:
/// the `standardwebhooks` package from PyPI (installed by scripts/setup.sh and .ci/run).
@Suite("Standard Webhooks interop with the standardwebhooks package", .serialized, .heavy)
struct SignatureInteropTests {
    static func python(_ script: String, _ arguments: [String]) async throws -> (Int32, String) {
        try await onOwnThread { try pythonWaiting(script, arguments) }
    }

    private static func pythonWaiting(_ script: String, _ arguments: [String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func signaturesMadeByTheClientVerifyInPython() async throws {
        let secret = WebhookSecret.generate()
        let server = try BrokenHTTPServer(.respond(status: 200, body: "{\"decision\":\"denied\"}"))
        defer { server.stop() }
        let verifier = try HTTPVerifier(settings: .init(url: "http://127.0.0.1:\(server.port)/verify", secret: secret))
        _ = await verifier.verify(attempt("6160"))
        await verifier.shutdown()
        let request = try #require(server.requests.first)
        let script = """
            import sys
            from standardwebhooks.webhooks import Webhook
            secret, msg_id, ts, sig, body = sys.argv[1:6]
            Webhook(secret).verify(body.encode(), {"webhook-id": msg_id, "webhook-timestamp": ts, "webhook-signature": sig})
            print("verified")
            """
        let (status, output) = try await SignatureInteropTests.python(
            script,
            [
                secret.text, request.headers["webhook-id"] ?? "", request.headers["webhook-timestamp"] ?? "",
                request.headers["webhook-signature"] ?? "", String(decoding: request.body, as: UTF8.self),
            ])
        #expect(status == 0, "\(output)")
        #expect(output.contains("verified"))
    }

    @Test func theReferenceServerAcceptsASignatureMadeInPython() async throws {
        let secret = WebhookSecret.generate()
        let body =
            "{\"terminal_id\":\"door-9\",\"kind\":\"pin\",\"value\":\"4826\",\"attempt_id\":\"5f0e2c1a-7b3d-4e9f-8a6c-1d2e3f4a5b6c\",\"entered_at\":\"2026-11-20T10:00:00Z\"}"
        let now = Int(Date().timeIntervalSince1970)
        let script = """
            import sys, datetime
            from standardwebhooks.webhooks import Webhook
            secret, msg_id, ts, body = sys.argv[1:5]
            print(Webhook(secret).sign(msg_id, datetime.datetime.fromtimestamp(int(ts), tz=datetime.timezone.utc), body))
            """
        let (status, output) = try await SignatureInteropTests.python(script, [secret.text, "py-1", String(now), body])
        #expect(status == 0, "\(output)")
        let signature = output.trimmingCharacters(in: .whitespacesAndNewlines)
        let hash = try PINHash.make(pin: SecretDigits(ascii: "4826")!, iterations: 1_000)
        let reference = try await ReferenceVerifier.overNewStore(
            settings: .init(secret: secret), users: UsersFile(users: [UserRecord(name: "py", pinHash: hash)]))
        let reply = await reference.handle(
            .init(
                contentType: "application/json", webhookID: "py-1", webhookTimestamp: String(now),
                webhookSignature: signature, body: Array(body.utf8)))
        #expect(reply == .granted(user: "py"))
    }
}
