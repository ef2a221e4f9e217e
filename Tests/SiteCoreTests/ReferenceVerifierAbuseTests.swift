import Foundation
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import SiteCore
import Testing
import VerifierTestSupport

/// The reference verifier under hostile or heavy use: replays across a restart, floods of
/// rejected requests, strict content types, many attempts at once, a database that is gone.
@Suite("Reference verifier: replays, floods, concurrency", .heavy)
struct ReferenceVerifierAbuseTests {
    let secret = WebhookSecret.generate()
    let clock = TestWallClock()

    func users() throws -> UsersFile {
        let hash = try PINHash.make(pin: SecretDigits(ascii: "2580")!, iterations: 1_000)
        return try UsersFile(parsing: "alice:\(hash)\n", source: "users")
    }

    /// A new SQLite store with alice (PIN 2580).
    func store() async throws -> StoreUnderTest {
        try await StoreUnderTest.make(.sqlite, users: try users())
    }

    func make(_ store: StoreUnderTest, lockout: LockoutPolicy = LockoutPolicy(), signed: Bool = true) -> ReferenceVerifier {
        ReferenceVerifier(
            settings: .init(secret: signed ? secret : nil, lockout: lockout, rejectionLimit: 20, rejectionInterval: 10),
            store: store.store, clock: clock.read)
    }

    func request(
        _ value: String, kind: String = "pin", id: String = UUID().uuidString, attempt: String? = nil, terminal: String = "door-1", sign: Bool = true,
        source: String = "10.0.0.7"
    ) -> ReferenceVerifier.Incoming {
        let body = Array(
            "{\"terminal_id\":\"\(terminal)\",\"kind\":\"\(kind)\",\"value\":\"\(value)\",\"attempt_id\":\"\(attempt ?? id)\",\"entered_at\":\"2027-01-15T08:00:00Z\"}"
                .utf8)
        let seconds = Int(clock.now.timeIntervalSince1970)
        return ReferenceVerifier.Incoming(
            contentType: "application/json", webhookID: id, webhookTimestamp: String(seconds),
            webhookSignature: sign ? WebhookSignature.sign(id: id, timestamp: seconds, body: body, secret: secret) : nil,
            body: body, source: source)
    }

    func decision(_ reply: VerifierDecision) -> String? {
        reply.answerText
    }

    /// A request sent again (a door's retry whose first answer was lost, or a captured one) is
    /// never decided twice, across a restart too: the same attempt gets the answer kept for
    /// it; the id with another attempt or door is refused as a replay.
    @Test func aRequestSentAgainIsNotDecidedAgainAfterARestartToo() async throws {
        let first = try await store()
        let id = "6a2f4c1e-9d3b-4e7a-8c5f-0b1d2e3f4a5b"
        let wrong = request("0000", id: id)
        // Denials count across the restart (the lockout is in the database): 3 lock.
        let policy = LockoutPolicy(maxFailures: 3, lockout: .seconds(60))
        #expect(decision(await make(first, lockout: policy).handle(wrong)) == "denied")
        await first.close()
        // The verifier restarts; the same request comes again within the 5-minute window.
        clock.advance(60)
        let second = try await first.reopened()
        defer { Task { await second.destroy() } }
        let restarted = make(second, lockout: policy)
        #expect(decision(await restarted.handle(wrong)) == "denied")
        #expect(await restarted.handle(request("0000", id: id, attempt: UUID().uuidString)).refusal == .replayed)
        #expect(await restarted.handle(request("0000", id: id, terminal: "door-2")).refusal == .replayed)
        let repeated = try await second.auditRecords().filter { $0["decision"] == "repeated" }
        #expect(repeated.count == 1, "\(repeated)")
        // ... and it did not count toward the lockout: one more wrong PIN is the second
        // denial, not yet a lockout (had the repeat counted, it would be the third).
        #expect(decision(await restarted.handle(request("0000"))) == "denied")
        #expect(decision(await restarted.handle(request("2580"))) == "granted")
    }

    @Test func theKioskpadTerminalHeaderPicksTheKeyAndMustNameTheBodysDoor() async throws {
        let under = try await store()
        defer { Task { await under.destroy() } }
        let verifier = make(under)
        var named = request("2580")
        named.terminal = "door-1"
        #expect(decision(await verifier.handle(named)) == "granted")
        var other = request("2580")
        other.terminal = "door-2"
        #expect(await verifier.handle(other).refusal == .malformed, "the body names door-1")
        var lookAlike = request("2580")
        lookAlike.terminal = "door-1 "
        #expect(await verifier.handle(lookAlike).refusal == .malformed, "not a terminal_id: refused before a key is chosen")
    }

    @Test func theReplayCacheIsBoundedByTheWindow() async throws {
        let store = try await store()
        defer { Task { await store.destroy() } }
        let clock = self.clock
        @Sendable func claim(_ id: String) async throws -> Bool {
            try await store.store.commitAttempt(terminal: "door-1", policy: LockoutPolicy()) { _, transaction in
                try await transaction.claimRequestID(id, now: clock.now)
            }
        }
        for n in 0..<1_500 {
            #expect(try await claim("id-\(n)"))
            clock.advance(2)  // one request every 2 seconds for 50 minutes
        }
        #expect(try await !claim("id-1499"))  // recent: still refused
        #expect(try await !claim("id-1250"))  // 8 minutes old: still refused
        #expect(try await claim("id-10"))  // 49 minutes old: forgotten
        // Expired ids are deleted now and then (1 claim in 64): far fewer rows than claims.
        let rows = try await store.count("kioskpad_replay")
        #expect(rows < 1_000, "\(rows) rows for 1,500 claims over 50 minutes with a 10-minute window")
    }

    /// A signed request that reuses a decided attempt's `webhook-id` and `attempt_id` with
    /// another PIN (issue 78: alice's grant handed to `0000`) is refused as a replay, and
    /// the same request sent again byte for byte still gets its kept answer.
    @Test func theSameIDAndAttemptWithAnotherPINGetNoKeptAnswer() async throws {
        let store = try await store()
        defer { Task { await store.destroy() } }
        let reference = make(store)
        let id = "7b3e5d2f-0e4c-4f8b-9d6a-1c2e3f4a5b6c"
        let right = request("2580", id: id)
        #expect(decision(await reference.handle(right)) == "granted")
        #expect(await reference.handle(request("0000", id: id)).refusal == .replayed)
        #expect(await reference.handle(right).answerText == "granted", "the identical retry is answered as decided")
        let repeated = try await store.auditRecords().filter { $0["decision"] == "repeated" }
        #expect(repeated.count == 1, "\(repeated)")
    }

    /// An id whose window passed is taken over by a new request without the answer kept for
    /// the old one: only its own answer is ever given back.
    @Test func anIDTakenOverAfterItsWindowKeepsNoOldAnswer() async throws {
        let store = try await store()
        defer { Task { await store.destroy() } }
        let clock = self.clock
        let kept = try #require(KeptAnswer(.granted(unlockSeconds: 4, user: "alice"), terminal: "door-1", attemptID: "a-1", request: KeptAnswerTests.first))
        let claimed = try await store.store.commitAttempt(terminal: "door-1", policy: LockoutPolicy()) { _, transaction in
            let claimed = try await transaction.claimRequestID("id-1", now: clock.now)
            try await transaction.keepAnswer(requestID: "id-1", kept)
            return claimed
        }
        #expect(claimed)
        #expect(try await store.store.keptAnswer(requestID: "id-1", now: clock.now) == kept)
        clock.advance(ReplayWindow.seconds + 1)
        #expect(try await store.store.keptAnswer(requestID: "id-1", now: clock.now) == nil, "out of its window")
        #expect(try await store.store.claimRequestID("id-1", now: clock.now), "taken over")
        #expect(try await store.store.keptAnswer(requestID: "id-1", now: clock.now) == nil, "the old answer went with the old request")
    }

    @Test func aFloodOfUnsignedRequestsIsCountedNotWrittenOneByOne() async throws {
        let store = try await store()
        defer { Task { await store.destroy() } }
        let reference = make(store)
        var outcomes: [String: Int] = [:]
        for _ in 0..<500 {
            outcomes[await reference.handle(request("1111", sign: false, source: "203.0.113.9")).outcomeName, default: 0] += 1
        }
        #expect(outcomes == ["unauthenticated": 20, "throttled": 480])
        // Another source is not affected, and signed requests from it still work.
        #expect(await reference.handle(request("1111", sign: false, source: "10.0.0.8")).refusal == .unauthenticated)
        #expect(decision(await reference.handle(request("2580", source: "10.0.0.8"))) == "granted")
        #expect(try await store.auditRecords().filter { $0["source"] == "203.0.113.9" }.count == 1)
        // When the interval ends, one aggregated record says what happened.
        clock.advance(11)
        _ = await reference.handle(request("2580", source: "10.0.0.8"))
        let summary = try #require(try await store.auditRecords().first { $0["source"] == "203.0.113.9" && $0["count"] != nil })
        #expect(summary["count"] == "20")
        #expect(summary["throttled"] == "480")
        #expect(summary["refusals"] == "unauthenticated:20")
        #expect(await reference.handle(request("1111", sign: false, source: "203.0.113.9")).refusal == .unauthenticated)  // a new interval
    }

    @Test(arguments: [
        ("application/json", true), ("application/json; charset=utf-8", true), ("Application/JSON", true),
        ("application/jsonEVIL", false), ("application/json-seq", false), ("text/json", false), ("", false),
    ])
    func onlyTheJSONMediaTypeIsAccepted(contentType: String, accepted: Bool) async throws {
        let store = try await store()
        defer { Task { await store.destroy() } }
        let reference = make(store)
        var incoming = request("2580")
        incoming.contentType = contentType
        let decision = await reference.handle(incoming)
        #expect(decision == (accepted ? .granted(user: "alice") : .refused(.malformed, reason: "content-type must be application/json")), "\(contentType)")
    }

    @Test func concurrentAttemptsFromOneTerminalKeepTheLockoutExact() async throws {
        let store = try await store()
        defer { Task { await store.destroy() } }
        let reference = make(store, lockout: LockoutPolicy(maxFailures: 5, lockout: .seconds(60)))
        let replies = await withTaskGroup(of: VerifierDecision.self) { group in
            for _ in 0..<30 {
                group.addTask { await reference.handle(request("0000")) }
            }
            var all: [VerifierDecision] = []
            for await reply in group { all.append(reply) }
            return all
        }
        #expect(replies.count == 30)
        #expect(replies.filter { $0 == .lockedOut }.count == 25, "exactly max_failures denials are checked, the rest are locked out")
    }

    @Test func aClosedDatabaseIsUnavailableNotADenial() async throws {
        let store = try await store()
        defer { Task { await store.destroy() } }
        let reference = make(store)
        await store.close()
        #expect(await reference.handle(request("12345678", kind: "code")) == .unavailable)
        #expect(await reference.handle(request("2580")) == .unavailable)
    }
}
