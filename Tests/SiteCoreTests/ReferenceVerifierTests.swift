import Foundation
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import SiteCore
import Synchronization
import Testing
import VerifierTestSupport

/// A settable wall clock for the reference verifier.
final class TestWallClock: Sendable {
    private let time = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
    var now: Date { time.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { time.withLock { $0 = $0.addingTimeInterval(seconds) } }
    var read: @Sendable () -> Date { { [self] in now } }
}

/// The decisions over each real store, with the same assertions: a new SQLite file, and a
/// PostgreSQL started for the test.
@Suite("Reference verifier decisions, on SQLite and PostgreSQL", .heavy)
struct ReferenceVerifierTests {
    static let totpSecret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
    let secret = WebhookSecret.generate()
    let clock = TestWallClock()

    /// alice (PIN 2580, a TOTP secret) and `moreUsers` in a new store of `kind`.
    func store(_ kind: StoreUnderTest.Kind, moreUsers: String = "") async throws -> StoreUnderTest {
        let alice = try PINHash.make(pin: SecretDigits(ascii: "2580")!, iterations: 1_000)
        let users = try UsersFile(parsing: "alice:\(alice):totp=\(ReferenceVerifierTests.totpSecret)\n" + moreUsers, source: "users")
        return try await StoreUnderTest.make(kind, users: users)
    }

    func verifier(_ store: StoreUnderTest, lockout: LockoutPolicy = LockoutPolicy(), signed: Bool = true) -> ReferenceVerifier {
        ReferenceVerifier(
            settings: ReferenceVerifier.Settings(secret: signed ? secret : nil, unlockSeconds: 4, lockout: lockout),
            store: store.store, clock: clock.read)
    }

    func request(_ kind: String, _ value: String, id: String = UUID().uuidString, terminal: String = "door-1", sign: Bool = true, timestamp: Date? = nil)
        -> ReferenceVerifier.Incoming
    {
        let body = Array(
            "{\"terminal_id\":\"\(terminal)\",\"kind\":\"\(kind)\",\"value\":\"\(value)\",\"attempt_id\":\"\(id)\",\"entered_at\":\"2027-01-15T08:00:00Z\"}"
                .utf8)
        let seconds = Int((timestamp ?? clock.now).timeIntervalSince1970)
        return ReferenceVerifier.Incoming(
            contentType: "application/json", webhookID: id, webhookTimestamp: String(seconds),
            webhookSignature: sign ? WebhookSignature.sign(id: id, timestamp: seconds, body: body, secret: secret) : nil,
            body: body)
    }

    func decision(_ reply: VerifierDecision) -> String? {
        reply.answerText
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func pinsAreGrantedOrDenied(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await store(kind)
        defer { Task { await store.destroy() } }
        let reference = verifier(store)
        #expect(await reference.handle(request("pin", "2580")) == .granted(unlockSeconds: 4, user: "alice"))  // the grant names its user
        #expect(decision(await reference.handle(request("pin", "2581"))) == "denied")
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func cardsMatchOnlyCardLinesAndPINsOnlyPINLines(_ kind: StoreUnderTest.Kind) async throws {
        let card = try PINHash.make(pin: SecretDigits(ascii: "00065537")!, iterations: 1_000)
        let store = try await store(kind, moreUsers: "alice:\(card):card\n")
        defer { Task { await store.destroy() } }
        let reference = verifier(store)
        #expect(await reference.handle(request("card", "00065537")) == .granted(unlockSeconds: 4, user: "alice"))
        #expect(decision(await reference.handle(request("card", "2580"))) == "denied")  // her PIN, sent as a card
        #expect(decision(await reference.handle(request("pin", "00065537"))) == "denied")  // her card, typed as a PIN
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func signaturesAreRequiredFreshAndSingleUse(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await store(kind)
        defer { Task { await store.destroy() } }
        let reference = verifier(store)
        #expect(await reference.handle(request("pin", "2580", sign: false)).refusal == .unauthenticated)
        var tampered = request("pin", "2580")
        tampered.body = Array(String(decoding: tampered.body, as: UTF8.self).replacingOccurrences(of: "2580", with: "2581").utf8)
        #expect(await reference.handle(tampered).refusal == .unauthenticated)
        #expect(await reference.handle(request("pin", "2580", timestamp: clock.now.addingTimeInterval(-400))).refusal == .unauthenticated)
        // Sent again, the same request is answered as it was, and nothing is decided again.
        let once = request("pin", "2580", id: "3c9e1b7a-5d2f-4a8e-b6c0-7e1f2a3b4c5d")
        #expect(await reference.handle(once) == .granted(unlockSeconds: 4, user: "alice"))
        #expect(await reference.handle(once) == .repeated(.granted(unlockSeconds: 4, user: "alice")))
        // The same id for another door's request is a replay (that door signs with the same
        // site secret here).
        #expect(await reference.handle(request("pin", "2580", id: "3c9e1b7a-5d2f-4a8e-b6c0-7e1f2a3b4c5d", terminal: "door-2")).refusal == .replayed)
    }

    /// A door whose answer was late sends the attempt to the other instance while the first
    /// may still be deciding it: two instances on one store get it at once. One decides; the
    /// other answers what was decided. One denial counts, one record says repeated.
    @Test(arguments: StoreUnderTest.Kind.allCases)
    func twoInstancesGivenOneAttemptAtOnceDecideItOnce(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await store(kind)
        defer { Task { await store.destroy() } }
        let policy = LockoutPolicy(maxFailures: 2, lockout: .seconds(60))
        let (a, b) = (verifier(store, lockout: policy), verifier(store, lockout: policy))
        let wrong = request("pin", "1111")
        async let first = a.handle(wrong)
        async let second = b.handle(wrong)
        let answers = await [first, second]
        #expect(answers.map { decision($0) } == ["denied", "denied"], "\(answers)")
        let records = try await store.auditRecords().filter { $0["attempt_id"] == wrong.webhookID }
        #expect(records.compactMap { $0["decision"] }.sorted() == ["denied", "repeated"], "\(records)")
        // One denial counted: the next wrong PIN is the second (locking), then even alice's is refused.
        #expect(decision(await a.handle(request("pin", "2222"))) == "denied")
        #expect(await b.handle(request("pin", "2580")) == .lockedOut)
    }

    @Test func malformedRequestsGet400() async throws {
        let store = try await store(.sqlite)
        defer { Task { await store.destroy() } }
        let reference = verifier(store, signed: false)
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

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func totpCodesWorkInTheirWindowAndOnlyOnce(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await store(kind)
        defer { Task { await store.destroy() } }
        let reference = verifier(store)
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

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func oneTimeCodesWorkOnceAndExpire(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await store(kind)
        defer { Task { await store.destroy() } }
        let reference = verifier(store)
        let code = try await store.issueCode(user: "alice", ttl: 600, now: clock.now)
        #expect(code.count == 8)
        #expect(decision(await reference.handle(request("code", code))) == "granted")
        #expect(decision(await reference.handle(request("code", code))) == "denied")
        let late = try await store.issueCode(user: "alice", ttl: 60, now: clock.now)
        clock.advance(61)
        #expect(decision(await reference.handle(request("code", late))) == "denied")
        // A code whose user was removed since it was issued opens nothing, and is used up.
        let orphan = try await store.issueCode(user: "alice", ttl: 600, now: clock.now)
        _ = try await store.administration.remove(name: "alice")
        #expect(try await store.store.liveCodes(now: clock.now).isEmpty, "a removed user's codes end with them")
        #expect(decision(await reference.handle(request("code", orphan))) == "denied")
        // A new alice does not inherit the old one's code (issue 78).
        try await store.administration.add(name: "alice", hash: try PINHash.make(pin: SecretDigits(ascii: "3690")!, iterations: 1_000), tag: nil)
        #expect(decision(await reference.handle(request("code", orphan))) == "denied")
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func fortyRedemptionsOfOneCodeAtOnceGrantItOnce(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await store(kind)
        defer { Task { await store.destroy() } }
        let reference = verifier(store)
        let code = try await store.issueCode(user: "alice", ttl: 600, now: clock.now)
        let requests = (0..<40).map { request("code", code, terminal: "door-\($0)") }
        let grants = await withTaskGroup(of: Bool.self) { group in
            for incoming in requests { group.addTask { await reference.handle(incoming).answerText == "granted" } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(grants == 1)
        let audited = try await store.auditRecords().filter { $0["kind"] == "code" }
        #expect(audited.count == 40)
        #expect(audited.filter { $0["decision"] == "granted" }.count == 1)
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func eachTerminalIsLockedOutOnItsOwn(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await store(kind)
        defer { Task { await store.destroy() } }
        let reference = verifier(store, lockout: LockoutPolicy(maxFailures: 2, lockout: .seconds(60)))
        _ = await reference.handle(request("pin", "0000", terminal: "door-1"))
        _ = await reference.handle(request("pin", "0000", terminal: "door-1"))
        let locked = await reference.handle(request("pin", "2580", terminal: "door-1"))
        #expect(locked == .lockedOut)
        #expect(decision(await reference.handle(request("pin", "2580", terminal: "door-2"))) == "granted")
        clock.advance(61)
        #expect(decision(await reference.handle(request("pin", "2580", terminal: "door-1"))) == "granted")
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func lockoutsAndUsedTOTPStepsSurviveARestartUntilCleared(_ kind: StoreUnderTest.Kind) async throws {
        let first = try await store(kind)
        let policy = LockoutPolicy(maxFailures: 2, lockout: .seconds(60))
        let totp = TOTP(secret: TOTP.base32Decode(ReferenceVerifierTests.totpSecret)!)
        let current = totp.code(step: totp.step(at: Int(clock.now.timeIntervalSince1970)))
        do {
            let reference = verifier(first, lockout: policy)
            #expect(decision(await reference.handle(request("code", current, terminal: "door-2"))) == "granted")
            _ = await reference.handle(request("pin", "0000"))
            _ = await reference.handle(request("pin", "0000"))
        }
        await first.close()
        // The verifier restarts: new connections, new ReferenceVerifier, the same database.
        let second = try await first.reopened()
        defer { Task { await second.destroy() } }
        let restarted = verifier(second, lockout: policy)
        #expect(await restarted.handle(request("pin", "2580")) == .lockedOut)
        #expect(decision(await restarted.handle(request("code", current, terminal: "door-2"))) == "denied")
        let listed = try await second.administration.lockouts(policy: policy)
        #expect(listed.map(\.terminal) == ["door-1", "door-2"])
        #expect(listed.first?.tracker.isLocked(at: .seconds(clock.now.timeIntervalSince1970)) == true)
        #expect(try await second.administration.clearLockout(terminal: "door-1"))
        #expect(try await !second.administration.clearLockout(terminal: "door-9"))
        #expect(decision(await restarted.handle(request("pin", "2580"))) == "granted")
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func theAuditRecordsDecisionsButNeverValues(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await store(kind)
        defer { Task { await store.destroy() } }
        let reference = verifier(store)
        _ = await reference.handle(request("pin", "2580"))
        _ = await reference.handle(request("pin", "7391"))
        _ = await reference.handle(request("pin", "7391", sign: false))
        let records = try await store.auditRecords()
        #expect(records.map { $0["decision"] } == ["granted", "denied", "rejected"])
        #expect(records[0]["user"] == "alice")
        #expect(records[2]["refusal"] == "unauthenticated")
        let text = redactingMeasuredValues(try await store.administration.auditRecords(last: 10).joined())  // ids and timings may hold any digits
        #expect(!text.contains("2580") && !text.contains("7391"))
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func anAttemptWhoseAuditCannotBeWrittenIsUnavailableNotAGrant(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await store(kind)
        defer { Task { await store.destroy() } }
        let reference = verifier(store)
        // The audit table refuses every row from now on; nothing else changes.
        try await store.breakAuditTable()
        #expect(await reference.handle(request("pin", "2580")) == .unavailable)
        let code = try await store.issueCode(user: "alice", ttl: 600, now: clock.now)
        #expect(await reference.handle(request("code", code)) == .unavailable)
        // The code's use was rolled back with the audit record: it still opens once the audit works.
        try await store.repairAuditTable()
        #expect(decision(await reference.handle(request("code", code))) == "granted")
    }
}
