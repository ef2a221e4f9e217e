import Crypto
import DoorOfflineReplica
import DoorVerifierClient
import Foundation
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import Logging
import Testing

/// `verifier.offline.mode: fallback` against real loopback servers: the door decides from
/// its replica only when `/verify` gave no answer (refused, 5xx, deadline), never after a
/// decision, a 4xx or a bad body, and never for a one-time code.
@Suite("Offline fallback over loopback", .serialized, .heavy)
struct OfflineFallbackTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kp-fallback-\(UUID())")

    /// A fallback verifier posting to `port`, holding a fresh replica with bob 1470.
    func fallback(port: Int, deadline: Duration = .milliseconds(400)) throws -> OfflineFallbackVerifier {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let key = Curve25519.Signing.PrivateKey()
        let keeper = ReplicaKeeper(
            settings: ReplicaKeeper.Settings(
                terminalID: "door-1", trust: ReplicaTrust(current: ReplicaPublicKey(key.publicKey)),
                path: directory.appendingPathComponent("replica.json").path,
                maxAge: .seconds(3600), wallClockTrusted: { true }))
        let entry = CredentialReplica.Entry(user: "bob", kind: "pin", hash: try PINHash.make(pin: SecretDigits(ascii: "1470")!, iterations: 1000))
        try keeper.accept(
            try SignedReplica(
                signing: .replica(
                    CredentialReplica(
                        terminalID: "door-1", version: 7, issuedAt: Date(), timeZone: nil, schedules: [:], rules: [:], entries: [entry])), with: key),
            receivedAt: nil)
        let online = try HTTPVerifier(settings: .init(url: "http://127.0.0.1:\(port)/verify", deadline: deadline))
        return OfflineFallbackVerifier(online: online, keeper: keeper, logger: Logger(label: "test"))
    }

    @Test(arguments: [
        ("refused", nil as RecordingHTTPServer.Behaviour?), ("503", .respond(status: 503, body: "down")), ("slow", .slow(seconds: 2, body: "{}")),
    ])
    func noAnswerFallsBackToTheReplica(_ name: String, _ behaviour: RecordingHTTPServer.Behaviour?) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try behaviour.map { try RecordingHTTPServer($0) }
        let closed = try ClosedPort()
        defer { server?.stop() }
        let verifier = try fallback(port: server?.port ?? closed.port)
        defer { Task { await verifier.shutdown() } }
        let answers = [
            await verifier.decide(attempt("1470", kind: .pin)), await verifier.decide(attempt("9999", kind: .pin)),
            await verifier.decide(attempt("1470", kind: .code)),
        ]
        #expect(answers.map(\.outcome) == [.granted(user: "bob"), .denied(), .unavailable], "\(name): codes are never decided offline")
        let noted = answers.compactMap(\.offline)
        #expect(noted.map(\.decision) == ["granted", "denied", "refused"], "\(name)")
        #expect(noted.prefix(2).allSatisfy { $0.replicaVersion == 7 && $0.refusal == nil })
        #expect(noted.last?.refusal?.contains("codes are never decided offline") == true)
    }

    @Test(arguments: [
        ("401", RecordingHTTPServer.Behaviour.respond(status: 401, body: "{\"error\":\"bad signature\"}"), AttemptOutcome.unavailable),
        ("bad body", .respond(status: 200, body: "<html>granted</html>"), .unavailable),
        ("denied", .respond(status: 200, body: "{\"decision\":\"denied\"}"), .denied()),
    ])
    func anAnswerIsNeverOverruledByTheReplica(_ name: String, _ behaviour: RecordingHTTPServer.Behaviour, _ expected: AttemptOutcome) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try RecordingHTTPServer(behaviour)
        defer { server.stop() }
        // Each of these servers answers at once; a deadline of 5 s (not 400 ms) keeps a loaded
        // machine from turning the answer into "no answer", which the replica would decide.
        let verifier = try fallback(port: server.port, deadline: .seconds(5))
        defer { Task { await verifier.shutdown() } }
        let answer = await verifier.decide(attempt("1470"))
        #expect(answer.outcome == expected && answer.offline == nil, "\(name)")
    }
}

/// A PIN (or `kind`) attempt at door-1.
private func attempt(_ value: String, kind: AttemptKind = .pin) -> VerificationAttempt {
    VerificationAttempt(terminalID: "door-1", kind: kind, value: SecretDigits(ascii: value)!)
}
