import Foundation
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import SiteCore
import Testing
import VerifierTestSupport

/// Cards enrolled by presenting them, decided by the server over each real store: a door
/// armed for a user learns the next unknown card (answered `card_enrolled`, the door stays
/// shut) which then opens for them; someone's card is refused and ends the arming; after two
/// minutes nothing is learned, and the card waits in the unknown list to be claimed.
@Suite("Cards learned at a door, on SQLite and PostgreSQL", .heavy)
struct CardLearningDecisionTests {
    let siteSecret = WebhookSecret.generate()
    /// Friday 2027-01-15 08:00 UTC.
    let clock = TestWallClock()

    /// ana (PIN 2580) and bob (PIN 1470, card 00789888).
    func store(_ kind: StoreUnderTest.Kind) async throws -> StoreUnderTest {
        let ana = try PINHash.make(pin: SecretDigits(ascii: "2580")!, iterations: 1_000)
        let bob = try PINHash.make(pin: SecretDigits(ascii: "1470")!, iterations: 1_000)
        let card = try PINHash.make(pin: SecretDigits(ascii: "00789888")!, iterations: 1_000)
        return try await StoreUnderTest.make(kind, users: try UsersFile(parsing: "ana:\(ana)\nbob:\(bob)\nbob:\(card):card\n", source: "users"))
    }

    func verifier(_ store: StoreUnderTest, maxFailures: Int = 3) -> ReferenceVerifier {
        ReferenceVerifier(
            settings: ReferenceVerifier.Settings(secret: siteSecret, unlockSeconds: 4, lockout: LockoutPolicy(maxFailures: maxFailures)), store: store.store,
            clock: clock.read)
    }

    func learning(_ store: StoreUnderTest) -> CardLearningChanges {
        CardLearningChanges(
            administration: store.administration,
            changes: AdministratorChanges(store: store.store, by: .console("ops", role: .owner, from: "test"), now: clock.read))
    }

    func card(_ value: String, at door: String) -> ReferenceVerifier.Incoming {
        SignedAttempt.incoming("card", value, at: door, secret: siteSecret, now: clock.now)
    }

    func lastAttempt(_ store: StoreUnderTest) async throws -> [String: String] {
        try await store.auditRecords().last { $0["decision"] != nil } ?? [:]
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func anArmedDoorLearnsTheNextUnknownCardWhichThenOpensForItsUser(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await store(kind)
        defer { Task { await store.destroy() } }
        let reference = verifier(store)
        #expect(await reference.handle(card("10048576", at: "front-door")) == .denied())
        let arm = try await learning(store).arm(door: "front-door", user: "ana", now: clock.now)
        #expect(arm.expires == clock.now.addingTimeInterval(120))
        let armed = try #require(try await store.auditRecords().last)
        #expect(armed["action"] == "card_learn_arm" && armed["user"] == "ana" && armed["door"] == "front-door" && armed["admin"] == "ops")
        // Another door is not armed; this one learns the card and stays shut.
        #expect(await reference.handle(card("10048576", at: "back-door")) == .denied())
        #expect(await reference.handle(card("10048576", at: "front-door")) == .cardEnrolled)
        let learned = try await lastAttempt(store)
        #expect(learned["reason"] == "card_enrolled" && learned["user"] == "ana" && learned["kind"] == "card", "\(learned)")
        #expect(try await store.administration.cardLearning(user: "ana").first?.state(at: clock.now) == "learned")
        #expect(await reference.handle(card("10048576", at: "front-door")) == .granted(unlockSeconds: 4, user: "ana"))
        #expect(await reference.handle(card("10048576", at: "back-door")) == .granted(unlockSeconds: 4, user: "ana"))
        #expect(try await store.administration.records().filter { $0.name == "ana" && $0.card }.count == 1)
        #expect(!(try await store.auditRecords().description.contains("10048576")), "the number is never audited")
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func someonesCardIsRefusedAndEndsTheArming(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await store(kind)
        defer { Task { await store.destroy() } }
        let reference = verifier(store)
        _ = try await learning(store).arm(door: "front-door", user: "ana", now: clock.now)
        #expect(await reference.handle(card("00789888", at: "front-door")) == .denied())
        let refused = try await lastAttempt(store)
        #expect(refused["reason"] == "card_enrolled_to_another" && refused["user"] == "ana" && refused["owner"] == "bob", "\(refused)")
        #expect(try await store.administration.cardLearning(user: "ana").first?.result == "refused: that card is bob's already")
        // The arming ended: an unknown card now is not learned, bob's card is still bob's.
        #expect(await reference.handle(card("10048576", at: "front-door")) == .denied())
        #expect(await reference.handle(card("00789888", at: "front-door")) == .granted(unlockSeconds: 4, user: "bob"))
        #expect(try await store.administration.records().filter { $0.name == "ana" && $0.card }.isEmpty)
        await #expect(throws: UserEditError.self) { try await learning(store).arm(door: "front-door", user: "nobody", now: clock.now) }
        await #expect(throws: UserEditError.self) { try await learning(store).arm(door: "front door", user: "ana", now: clock.now) }
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func afterTwoMinutesNothingIsLearnedAndTheCardCanBeClaimedFromTheUnknownList(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await store(kind)
        defer { Task { await store.destroy() } }
        let reference = verifier(store)
        _ = try await learning(store).arm(door: "front-door", user: "ana", now: clock.now)
        clock.advance(121)
        #expect(await reference.handle(card("10048576", at: "front-door")) == .denied())
        #expect(try await store.administration.cardLearning(user: "ana").first?.state(at: clock.now) == "expired: no unknown card was read")
        let unknown = try await store.administration.unknownCards(since: clock.now.addingTimeInterval(-60))
        #expect(unknown.map(\.door) == ["front-door"] && unknown.first?.digits == 8)
        let id = try #require(unknown.first?.id)
        await #expect(throws: UserEditError.self) { try await learning(store).claim(id: id, user: "nobody") }
        try await learning(store).claim(id: id, user: "ana")
        let claimed = try #require(try await store.auditRecords().last)
        #expect(claimed["action"] == "card_claim" && claimed["user"] == "ana" && claimed["unknown_card"] == String(id) && claimed["door"] == "front-door")
        #expect(await reference.handle(card("10048576", at: "side-door")) == .granted(unlockSeconds: 4, user: "ana"))
        await #expect(throws: UserEditError.self) { try await learning(store).claim(id: id, user: "ana") }
        #expect(try await store.administration.unknownCards(since: .distantPast).isEmpty)
        // Only the newest 20 unknown cards per door are kept (a lockout stops the reading sooner).
        let patient = verifier(store, maxFailures: 100)
        for number in 0..<25 { _ = await patient.handle(card(String(format: "5%07d", number), at: "garage")) }
        #expect(try await store.administration.unknownCards(since: .distantPast).filter { $0.door == "garage" }.count == 20)
    }
}
