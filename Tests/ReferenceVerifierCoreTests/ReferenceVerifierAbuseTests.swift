import Foundation
import KeypadCore
import KeypadVerifier
import ReferenceVerifierCore
import Testing

/// The reference verifier under hostile or heavy use: replays across a restart, floods of
/// rejected requests, strict content types, many attempts at once, a broken code store.
@Suite("Reference verifier: replays, floods, concurrency")
struct ReferenceVerifierAbuseTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kp-abuse-\(UUID())")
    let secret = WebhookSecret.generate()
    let clock = TestWallClock()

    func users() throws -> UsersFile {
        let hash = try PINHash.make(pin: SecretDigits(ascii: "2580")!, iterations: 1_000)
        return try UsersFile(parsing: "alice:\(hash)\n", source: "users")
    }

    func make(
        replays: ReplayLog? = nil, audit: AuditLog? = nil, codes: OneTimeCodeStore? = nil,
        lockout: LockoutPolicy = LockoutPolicy(), signed: Bool = true
    ) throws -> ReferenceVerifier {
        ReferenceVerifier(
            settings: .init(secret: signed ? secret : nil, lockout: lockout, rejectionLimit: 20, rejectionInterval: 10),
            users: try users(), codes: codes, audit: audit, replays: replays, clock: clock.read)
    }

    func request(_ value: String, kind: String = "pin", id: String = UUID().uuidString, terminal: String = "door-1", sign: Bool = true, source: String = "10.0.0.7") -> ReferenceVerifier.Incoming {
        let body = Array("{\"terminal_id\":\"\(terminal)\",\"kind\":\"\(kind)\",\"value\":\"\(value)\",\"attempt_id\":\"\(id)\",\"entered_at\":\"2027-01-15T08:00:00Z\"}".utf8)
        let seconds = Int(clock.now.timeIntervalSince1970)
        return ReferenceVerifier.Incoming(
            contentType: "application/json", webhookID: id, webhookTimestamp: String(seconds),
            webhookSignature: sign ? WebhookSignature.sign(id: id, timestamp: seconds, body: body, secret: secret) : nil,
            body: body, source: source)
    }

    func decision(_ reply: VerifierDecision) -> String? {
        reply.answerText
    }

    func auditRecords(_ path: String) throws -> [[String: String]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: String]
        }
    }

    @Test func aReplayIsRefusedAfterARestartToo() async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("replay").path
        let wrong = request("0000", id: "captured-1")
        let first = try make(replays: try ReplayLog(path: path, now: clock.now), lockout: LockoutPolicy(maxFailures: 2, lockout: .seconds(60)))
        #expect(await first.handle(wrong).answerText != nil)
        // The verifier restarts; the captured request comes again within the 5-minute window.
        clock.advance(60)
        let restarted = try make(replays: try ReplayLog(path: path, now: clock.now), lockout: LockoutPolicy(maxFailures: 2, lockout: .seconds(60)))
        #expect(await restarted.handle(wrong).refusal == .replayed)
        // ... so it did not count toward the lockout: one more wrong PIN is not yet a lockout.
        #expect(decision(await restarted.handle(request("0000"))) == "denied")
        #expect(decision(await restarted.handle(request("2580"))) == "granted")
    }

    @Test func theReplayFileIsBoundedByTheWindow() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("replay").path
        let log = try ReplayLog(path: path, window: 600, now: clock.now)
        for n in 0..<3_000 {
            #expect(try log.insert("id-\(n)", now: clock.now))
            clock.advance(1) // one request a second for 50 minutes
        }
        #expect(try !log.insert("id-2999", now: clock.now))
        #expect(log.count <= 601)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").count
        #expect(lines <= 2 * 601 + 1_000, "the file is compacted: \(lines) lines")
        let reloaded = try ReplayLog(path: path, window: 600, now: clock.now)
        #expect(reloaded.count <= 601)
        #expect(try !reloaded.insert("id-2990", now: clock.now)) // recent: still refused
        #expect(try reloaded.insert("id-10", now: clock.now)) // 49 minutes old: forgotten
    }

    @Test func aFloodOfUnsignedRequestsIsCountedNotFsyncedOneByOne() async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let auditPath = directory.appendingPathComponent("audit.jsonl").path
        let reference = try make(audit: try AuditLog(path: auditPath))
        var outcomes: [String: Int] = [:]
        for _ in 0..<500 {
            outcomes[await reference.handle(request("1111", sign: false, source: "203.0.113.9")).outcomeName, default: 0] += 1
        }
        #expect(outcomes == ["unauthenticated": 20, "throttled": 480])
        // Another source is not affected, and signed requests from it still work.
        #expect(await reference.handle(request("1111", sign: false, source: "10.0.0.8")).refusal == .unauthenticated)
        #expect(decision(await reference.handle(request("2580", source: "10.0.0.8"))) == "granted")
        #expect(try auditRecords(auditPath).filter { $0["source"] == "203.0.113.9" }.count == 1)
        // When the interval ends, one aggregated record says what happened.
        clock.advance(11)
        _ = await reference.handle(request("2580", source: "10.0.0.8"))
        let summary = try #require(try auditRecords(auditPath).first { $0["source"] == "203.0.113.9" && $0["count"] != nil })
        #expect(summary["count"] == "20")
        #expect(summary["throttled"] == "480")
        #expect(summary["refusals"] == "unauthenticated:20")
        #expect(await reference.handle(request("1111", sign: false, source: "203.0.113.9")).refusal == .unauthenticated) // a new interval
    }

    @Test(arguments: [
        ("application/json", true), ("application/json; charset=utf-8", true), ("Application/JSON", true),
        ("application/jsonEVIL", false), ("application/json-seq", false), ("text/json", false), ("", false),
    ])
    func onlyTheJSONMediaTypeIsAccepted(contentType: String, accepted: Bool) async throws {
        let reference = try make()
        var incoming = request("2580")
        incoming.contentType = contentType
        let decision = await reference.handle(incoming)
        #expect(decision == (accepted ? .granted(user: "alice") : .refused(.malformed, reason: "content-type must be application/json")), "\(contentType)")
    }

    @Test func concurrentAttemptsFromOneTerminalKeepTheLockoutExact() async throws {
        let reference = try make(lockout: LockoutPolicy(maxFailures: 5, lockout: .seconds(60)))
        let replies = await withTaskGroup(of: String.self) { group in
            for _ in 0..<30 {
                group.addTask { "\(await reference.handle(request("0000")))" }
            }
            var all: [String] = []
            for await reply in group { all.append(reply) }
            return all
        }
        #expect(replies.count == 30)
        #expect(replies.filter { $0.contains("Locked out") }.count == 25, "exactly max_failures denials are checked, the rest are locked out")
    }

    @Test func aBrokenCodeStoreIsUnavailableNotADenial() async throws {
        let store = OneTimeCodeStore(path: "/nonexistent-kioskpad-dir/codes")
        let reference = try make(codes: store)
        #expect(await reference.handle(request("12345678", kind: "code")) == .unavailable)
    }
}
