import Foundation
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import SiteCore
import Testing
import VerifierTestSupport

/// A code typed at a door is checked against the rows of its lookup tag and the untagged ones,
/// not every live code and pass (issue 78, point 4), over each real store: codes and passes
/// issued with the site's lookup key are found by their tag, those issued before the key or
/// under an earlier one still open, the same digits are never live twice, and the live passes
/// of a host and of the site stay within the site's limits.
@Suite("Codes and visitor passes found by their lookup tag, on SQLite and PostgreSQL", .heavy)
struct CodeLookupTagTests {
    let siteSecret = WebhookSecret.generate()
    let clock = TestWallClock()
    let key = try! LookupKey(text: "code-lookup-key-of-the-site-under-test-0001")
    let earlierKey = try! LookupKey(text: "an-earlier-lookup-key-of-the-same-site-0002")

    func store(_ kind: StoreUnderTest.Kind) async throws -> StoreUnderTest {
        let alice = try PINHash.make(pin: SecretDigits(ascii: "2580")!, iterations: 1_000)
        let bob = try PINHash.make(pin: SecretDigits(ascii: "1470")!, iterations: 1_000)
        let store = try await StoreUnderTest.make(kind, users: try UsersFile(parsing: "alice:\(alice)\nbob:\(bob)\n", source: "users"))
        try await store.administration.setTimeZone("UTC")
        return store
    }

    func verifier(_ store: StoreUnderTest) -> ReferenceVerifier {
        ReferenceVerifier(
            settings: ReferenceVerifier.Settings(secret: siteSecret, unlockSeconds: 4, lookupKey: key), store: store.store, clock: clock.read)
    }

    func issuing(_ store: StoreUnderTest, key: LookupKey?, limits: VisitorPassLimits = VisitorPassLimits()) -> VisitorPassIssuing {
        VisitorPassIssuing(
            administration: store.administration,
            changes: AdministratorChanges(store: store.store, by: .console("ops", role: .owner, from: "test"), now: clock.read),
            codeLength: 8, limits: limits, lookupKey: key)
    }

    func pass(for visitor: String, host: String = "alice") -> VisitorPassRequest {
        VisitorPassRequest(visitor: visitor, host: host, doors: ["front-door"], validUntil: SiteDate(parsing: "2027-01-16")!, maxUses: nil)
    }

    func code(_ value: String) -> ReferenceVerifier.Incoming {
        SignedAttempt.incoming("code", value, at: "front-door", secret: siteSecret, now: clock.now)
    }

    static let granted = VerifierDecision.granted(unlockSeconds: 4, user: nil, duress: false)

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aCodeAttemptReadsItsTagsPassAndTheUntaggedOnesOnly(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await store(kind)
        defer { Task { await store.destroy() } }
        var tagged: [VisitorPassIssuing.Issued] = []
        for index in 0..<12 { tagged.append(try await issuing(store, key: key).issue(pass(for: "visitor \(index)"), now: clock.now)) }
        let untagged = try await issuing(store, key: nil).issue(pass(for: "before the key", host: "bob"), now: clock.now)
        let earlier = try await issuing(store, key: earlierKey).issue(pass(for: "under the earlier key", host: "bob"), now: clock.now)
        let wrong = SecretDigits(ascii: "00000000")!
        // A code no pass has: only the two rows no tag of this key covers are read (and hashed).
        let read = try await store.store.liveVisitorPasses(now: clock.now, lookupTag: key.codeTag(wrong))
        #expect(Set(read.map(\.id)) == [untagged.pass.id, earlier.pass.id], "\(read.map(\.visitor))")
        let one = try #require(tagged.last)
        let readForOne = try await store.store.liveVisitorPasses(now: clock.now, lookupTag: key.codeTag(SecretDigits(ascii: one.code)!))
        #expect(Set(readForOne.map(\.id)) == [one.pass.id, untagged.pass.id, earlier.pass.id])
        #expect(try await store.store.liveVisitorPasses(now: clock.now).count == 14, "without a tag: every live pass")
        // Each opens: the tagged by its tag, the others as before.
        let reference = verifier(store)
        for issued in [tagged[0], one, untagged, earlier] {
            #expect(await reference.handle(code(issued.code)) == Self.granted, "\(issued.pass.visitor)")
        }
        #expect(await reference.handle(code("00000000")) == .denied())
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func oneTimeCodesAreFoundByTheirTagAndUntaggedOnesStillOpen(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await store(kind)
        defer { Task { await store.destroy() } }
        let tagged = try await store.issueCode(user: "alice", ttl: 600, now: clock.now, lookupKey: key)
        let other = try await store.issueCode(user: "alice", ttl: 600, now: clock.now, lookupKey: key)
        let untagged = try await store.issueCode(user: "alice", ttl: 600, now: clock.now)
        let read = try await store.store.liveCodes(now: clock.now, lookupTag: key.codeTag(SecretDigits(ascii: tagged)!))
        #expect(read.count == 2, "its own row and the untagged one, not \(other)'s")
        let reference = verifier(store)
        #expect(await reference.handle(code(tagged)).answerText == "granted")
        #expect(await reference.handle(code(tagged)).answerText == "denied", "used once")
        #expect(await reference.handle(code(untagged)).answerText == "granted")
        #expect(await reference.handle(code(other)).answerText == "granted")
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func digitsLiveInACodeOrPassAreNotStoredTwice(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await store(kind)
        defer { Task { await store.destroy() } }
        let digits = SecretDigits(ascii: "31415926")!
        let hash = try PINHash.make(pin: digits, iterations: 1_000)
        let tag = key.codeTag(digits)
        try await store.administration.issueCode(user: "alice", hash: hash, lookupTag: tag, expires: clock.now.addingTimeInterval(600), door: nil)
        await #expect(throws: CodeTagInUse.self) {
            try await store.administration.issueCode(user: "bob", hash: hash, lookupTag: tag, expires: clock.now.addingTimeInterval(600), door: nil)
        }
        await #expect(throws: CodeTagInUse.self) {
            try await store.administration.issueVisitorPass(
                pass(for: "Ada"), hash: hash, lookupTag: tag, now: clock.now, limits: VisitorPassLimits(), issuedBy: "ops")
        }
        // Used, its digits are free again.
        let reference = verifier(store)
        #expect(await reference.handle(code("31415926")).answerText == "granted")
        try await store.administration.issueCode(user: "bob", hash: hash, lookupTag: tag, expires: clock.now.addingTimeInterval(600), door: nil)
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aHostAndTheSiteHaveAtMostTheirLimitOfLivePasses(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await store(kind)
        defer { Task { await store.destroy() } }
        let limited = issuing(store, key: key, limits: VisitorPassLimits(maxDays: 30, maxLivePerHost: 2, maxLive: 3))
        let first = try await limited.issue(pass(for: "one"), now: clock.now)
        _ = try await limited.issue(pass(for: "two"), now: clock.now)
        let perHost = await #expect(throws: UserEditError.self) { try await limited.issue(pass(for: "three"), now: clock.now) }
        #expect(perHost?.description.contains("host: 'alice' hosts 2 live visitor passes") == true, "\(String(describing: perHost))")
        #expect(perHost?.description.contains("server.visitor_pass_max_live_per_host: 2") == true)
        _ = try await limited.issue(pass(for: "bob's", host: "bob"), now: clock.now)
        let perSite = await #expect(throws: UserEditError.self) { try await limited.issue(pass(for: "bob's second", host: "bob"), now: clock.now) }
        #expect(perSite?.description.contains("server.visitor_pass_max_live: 3") == true, "\(String(describing: perSite))")
        // A revoked pass is no longer live: its host may issue another.
        try await limited.revoke(id: first.pass.id, now: clock.now)
        _ = try await limited.issue(pass(for: "three"), now: clock.now)
        let refusedIssues = try await store.auditRecords().filter { $0["action"] == "visitor_pass_issue" }.count
        #expect(refusedIssues == 4, "a refused pass is not audited")
    }
}
