import Foundation
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import SiteCore
import Testing
import VerifierTestSupport

/// A decision the door can no longer receive commits nothing (issue 78, point 9): a request
/// whose `kioskpad-wait-ms` has passed by the time it is decided uses no code, counts no
/// denial, leaves its request id free for a retry, and is audited as an error naming why.
@Suite("Decisions past the door's wait, on SQLite and PostgreSQL", .heavy)
struct AnswerWaitTests {
    let siteSecret = WebhookSecret.generate()
    let clock = TestWallClock()

    func store(_ kind: StoreUnderTest.Kind) async throws -> StoreUnderTest {
        let alice = try PINHash.make(pin: SecretDigits(ascii: "2580")!, iterations: 1_000)
        return try await StoreUnderTest.make(kind, users: try UsersFile(parsing: "alice:\(alice)\n", source: "users"))
    }

    func verifier(_ store: StoreUnderTest) -> ReferenceVerifier {
        ReferenceVerifier(
            settings: ReferenceVerifier.Settings(secret: siteSecret, unlockSeconds: 4, lockout: LockoutPolicy(maxFailures: 3)), store: store.store,
            clock: clock.read)
    }

    /// `kind` `value` at door-1, whose door waits `wait` ms from a second ago (`late`) or from now.
    func attempt(_ kind: String, _ value: String, late: Bool) -> ReferenceVerifier.Incoming {
        var incoming = SignedAttempt.incoming(kind, value, at: "door-1", secret: siteSecret, now: clock.now)
        incoming.waitMilliseconds = late ? 200 : 10_000
        incoming.arrived = late ? .now - .seconds(1) : .now
        return incoming
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aCodeDecidedTooLateIsNotUsedAndItsRetryInTimeIsDecided(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await store(kind)
        defer { Task { await store.destroy() } }
        let reference = verifier(store)
        let code = try await store.issueCode(user: "alice", ttl: 600, now: clock.now)
        var request = attempt("code", code, late: true)
        #expect(await reference.handle(request) == .unavailable)
        #expect(try await store.store.liveCodes(now: clock.now).count == 1, "the code is not used")
        let record = try #require(try await store.auditRecords().last)
        #expect(record["decision"] == "error" && record["reason"]?.hasPrefix("too late: decided ") == true, "\(record)")
        #expect(record["reason"]?.contains("past the door's wait of 200 ms; nothing used or counted") == true)
        // The same request (same webhook-id) again, in time: decided, not refused as a replay.
        request.waitMilliseconds = 10_000
        request.arrived = .now
        #expect(await reference.handle(request).answerText == "granted")
        #expect(try await store.store.liveCodes(now: clock.now).isEmpty)
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func wrongPINsDecidedTooLateCountNothingTowardTheLockout(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await store(kind)
        defer { Task { await store.destroy() } }
        let reference = verifier(store)
        for _ in 0..<5 { #expect(await reference.handle(attempt("pin", "1111", late: true)) == .unavailable) }
        let moment = Duration.seconds(clock.now.timeIntervalSince1970)
        #expect(try await store.store.lockout(terminal: "door-1", policy: LockoutPolicy(maxFailures: 3)).isLocked(at: moment) == false)
        #expect(await reference.handle(attempt("pin", "2580", late: false)).answerText == "granted")
        // In time, three wrong PINs lock the door as before.
        for _ in 0..<3 { #expect(await reference.handle(attempt("pin", "1111", late: false)).answerText == "denied") }
        #expect(try await store.store.lockout(terminal: "door-1", policy: LockoutPolicy(maxFailures: 3)).isLocked(at: moment))
    }

    @Test func theHeaderIsReadOnlyWhenItIsAWaitInRange() {
        #expect(AnswerWait.milliseconds("2000") == 2_000 && AnswerWait.milliseconds("999999") == 999_999)
        for text in ["", "0", "0100", "-5", "2s", "1000000", "99999999999", " 20", "２０"] {
            #expect(AnswerWait.milliseconds(text) == nil, "\(text)")
        }
        #expect(AnswerWait.usable(2_000) == .milliseconds(1_750) && AnswerWait.usable(500) == .milliseconds(400))
    }
}
