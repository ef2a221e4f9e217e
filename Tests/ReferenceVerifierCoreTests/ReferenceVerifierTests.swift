import Foundation
import KeypadCore
import KeypadTestSupport
import KeypadVerifier
import ReferenceVerifierCore
import Synchronization
import Testing

/// A settable wall clock for the reference verifier.
final class TestWallClock: Sendable {
    private let time = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
    var now: Date { time.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { time.withLock { $0 = $0.addingTimeInterval(seconds) } }
    var read: @Sendable () -> Date { { [self] in now } }
}

@Suite("Reference verifier decisions")
struct ReferenceVerifierTests {
    static let totpSecret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kp-ref-\(UUID())")
    let secret = WebhookSecret.generate()
    let clock = TestWallClock()

    func verifier(lockout: LockoutPolicy = LockoutPolicy(), signed: Bool = true, moreUsers: String = "") throws -> (ReferenceVerifier, OneTimeCodeStore, String) {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let alice = try PINHash.make(pin: SecretDigits(ascii: "2580")!, iterations: 1_000)
        let users = try UsersFile(parsing: "alice:\(alice):totp=\(ReferenceVerifierTests.totpSecret)\n" + moreUsers, source: "users")
        let codes = OneTimeCodeStore(path: directory.appendingPathComponent("codes").path, clock: clock.read)
        let auditPath = directory.appendingPathComponent("audit.jsonl").path
        let reference = ReferenceVerifier(
            settings: ReferenceVerifier.Settings(secret: signed ? secret : nil, unlockSeconds: 4, lockout: lockout),
            users: users, codes: codes, audit: try AuditLog(path: auditPath), clock: clock.read)
        return (reference, codes, auditPath)
    }

    func request(_ kind: String, _ value: String, id: String = UUID().uuidString, terminal: String = "door-1", sign: Bool = true, timestamp: Date? = nil) -> ReferenceVerifier.Incoming {
        let body = Array("{\"terminal_id\":\"\(terminal)\",\"kind\":\"\(kind)\",\"value\":\"\(value)\",\"attempt_id\":\"\(id)\",\"entered_at\":\"2027-01-15T08:00:00Z\"}".utf8)
        let seconds = Int((timestamp ?? clock.now).timeIntervalSince1970)
        return ReferenceVerifier.Incoming(
            contentType: "application/json", webhookID: id, webhookTimestamp: String(seconds),
            webhookSignature: sign ? WebhookSignature.sign(id: id, timestamp: seconds, body: body, secret: secret) : nil,
            body: body)
    }

    func decision(_ reply: VerifierDecision) -> String? {
        reply.answerText
    }

    @Test func pinsAreGrantedOrDenied() async throws {
        let (reference, _, _) = try verifier()
        #expect(await reference.handle(request("pin", "2580")) == .granted(unlockSeconds: 4, user: "alice"))  // the grant names its user
        #expect(decision(await reference.handle(request("pin", "2581"))) == "denied")
    }

    @Test func cardsMatchOnlyCardLinesAndPINsOnlyPINLines() async throws {
        let card = try PINHash.make(pin: SecretDigits(ascii: "00065537")!, iterations: 1_000)
        let (reference, _, _) = try verifier(moreUsers: "alice:\(card):card\n")
        #expect(await reference.handle(request("card", "00065537")) == .granted(unlockSeconds: 4, user: "alice"))
        #expect(decision(await reference.handle(request("card", "2580"))) == "denied")  // her PIN, sent as a card
        #expect(decision(await reference.handle(request("pin", "00065537"))) == "denied")  // her card, typed as a PIN
    }

    @Test func signaturesAreRequiredFreshAndSingleUse() async throws {
        let (reference, _, _) = try verifier()
        #expect(await reference.handle(request("pin", "2580", sign: false)).refusal == .unauthenticated)
        var tampered = request("pin", "2580")
        tampered.body = Array(String(decoding: tampered.body, as: UTF8.self).replacingOccurrences(of: "2580", with: "2581").utf8)
        #expect(await reference.handle(tampered).refusal == .unauthenticated)
        #expect(await reference.handle(request("pin", "2580", timestamp: clock.now.addingTimeInterval(-400))).refusal == .unauthenticated)
        let once = request("pin", "2580", id: "fixed-id")
        #expect(await reference.handle(once).answerText != nil)
        #expect(await reference.handle(once).refusal == .replayed)
    }

    @Test func malformedRequestsGet400() async throws {
        let (reference, _, _) = try verifier(signed: false)
        var wrongType = request("pin", "2580", sign: false)
        wrongType.contentType = "text/plain"
        #expect(await reference.handle(wrongType).refusal == .malformed)
        var garbage = request("pin", "2580", sign: false)
        garbage.body = Array("{\"terminal_id\": [".utf8)
        #expect(await reference.handle(garbage).refusal == .malformed)
        var huge = request("pin", "2580", sign: false)
        huge.body = [UInt8](repeating: 0x20, count: 20_000)
        #expect(await reference.handle(huge).refusal == .malformed)
    }

    @Test func totpCodesWorkInTheirWindowAndOnlyOnce() async throws {
        let (reference, _, _) = try verifier()
        let totp = TOTP(secret: TOTP.base32Decode(ReferenceVerifierTests.totpSecret)!)
        let seconds = Int(clock.now.timeIntervalSince1970)
        let current = totp.code(step: totp.step(at: seconds))
        #expect(decision(await reference.handle(request("code", current))) == "granted")
        #expect(decision(await reference.handle(request("code", current))) == "denied")
        let old = totp.code(step: totp.step(at: seconds) - 3)
        #expect(decision(await reference.handle(request("code", old))) == "denied")
        // A PIN is not a code, and a code is not a PIN.
        #expect(decision(await reference.handle(request("pin", totp.code(step: totp.step(at: seconds) + 1)))) == "denied")
    }

    @Test func oneTimeCodesWorkOnceAndExpire() async throws {
        let (reference, codes, _) = try verifier()
        let code = try codes.issue(user: "alice", ttl: 600, length: 8).withASCIIBytes { String(decoding: $0, as: UTF8.self) }
        #expect(code.count == 8)
        #expect(!(try String(contentsOfFile: codes.path, encoding: .utf8)).contains(code))
        #expect(decision(await reference.handle(request("code", code))) == "granted")
        #expect(decision(await reference.handle(request("code", code))) == "denied")
        let late = try codes.issue(user: "alice", ttl: 60, length: 8).withASCIIBytes { String(decoding: $0, as: UTF8.self) }
        clock.advance(61)
        #expect(decision(await reference.handle(request("code", late))) == "denied")
    }

    @Test func eachTerminalIsLockedOutOnItsOwn() async throws {
        let (reference, _, _) = try verifier(lockout: LockoutPolicy(maxFailures: 2, lockout: .seconds(60)))
        _ = await reference.handle(request("pin", "0000", terminal: "door-1"))
        _ = await reference.handle(request("pin", "0000", terminal: "door-1"))
        let locked = await reference.handle(request("pin", "2580", terminal: "door-1"))
        #expect(locked == .denied("Locked out"))
        #expect(decision(await reference.handle(request("pin", "2580", terminal: "door-2"))) == "granted")
        clock.advance(61)
        #expect(decision(await reference.handle(request("pin", "2580", terminal: "door-1"))) == "granted")
    }

    @Test func theAuditLogRecordsDecisionsButNeverValues() async throws {
        let (reference, _, auditPath) = try verifier()
        _ = await reference.handle(request("pin", "2580"))
        _ = await reference.handle(request("pin", "7391"))
        _ = await reference.handle(request("pin", "7391", sign: false))
        let lines = try String(contentsOfFile: auditPath, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 3)
        let records = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: String] }
        #expect(records.map { $0["decision"] } == ["granted", "denied", "rejected"])
        #expect(records[0]["user"] == "alice")
        #expect(records[2]["refusal"] == "unauthenticated")
        let text = redactingMeasuredValues(lines.joined()) // ids and timings may hold any digits
        #expect(!text.contains("2580") && !text.contains("7391"))
    }
}
