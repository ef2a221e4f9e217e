import Foundation
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import SiteCore
import Testing
import VerifierTestSupport

/// A PIN chosen at the door with an enrolment code, decided by the server over each real
/// store (the site's clock injected: Friday 2027-01-15 08:00 UTC, never slept).
extension AccessDecisionTests {
    /// A signed `POST /v1/enrol` body from `door`.
    func enrolment(_ code: String, _ pin: String, at door: String = "front-door", id: String = UUID().uuidString) -> ReferenceVerifier.Incoming {
        let body = EnrolmentRequestBody.encode(
            terminalID: door, code: SecretDigits(ascii: code)!, pin: SecretDigits(ascii: pin)!, attemptID: UUID(), enteredAt: clock.now)
        let seconds = Int(clock.now.timeIntervalSince1970)
        return ReferenceVerifier.Incoming(
            contentType: "application/json", webhookID: id, webhookTimestamp: String(seconds),
            webhookSignature: WebhookSignature.sign(id: id, timestamp: seconds, body: body, secret: siteSecret), body: body, terminal: door)
    }

    /// Stores `code` as an enrolment code (or an entry code) for `user`, live for an hour.
    func issue(_ code: String, to user: String, in store: StoreUnderTest, enrolment: Bool = true) async throws {
        let hash = try PINHash.make(pin: SecretDigits(ascii: code)!, iterations: 1_000)
        let expires = clock.now.addingTimeInterval(3600)
        if enrolment {
            try await store.administration.issueEnrolmentCode(user: user, hash: hash, lookupTag: nil, expires: expires)
        } else {
            try await store.administration.issueCode(user: user, hash: hash, lookupTag: nil, expires: expires, door: nil)
        }
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func anEnrolmentCodeLetsTheUserChooseTheirPINOnceAndRefusesWeakOrOldOnes(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await store(kind)
        defer { Task { await store.destroy() } }
        let reference = verifier(store)
        try await issue("48213907", to: "bob", in: store)
        #expect(await reference.enrol(enrolment("48213907", "1111")) == .enrolment(.refused(.weakPIN)))
        #expect(await reference.enrol(enrolment("48213907", "1470")) == .enrolment(.refused(.previousPIN)))
        #expect(await reference.enrol(enrolment("48213907", "1471")) == .enrolment(.refused(.previousPIN)), "nor the duress PIN")
        #expect(try await lastEnrolment(store)["reason"] == "previous_pin")
        #expect(try await lastEnrolment(store)["user"] == "bob")
        // The enrolment code opens no door.
        #expect(await reference.handle(request("48213907", at: "front-door", kind: "code")) == .denied())
        #expect(await reference.enrol(enrolment("48213907", "3579")) == .enrolment(.pinSet(user: "bob")))
        let record = try await lastEnrolment(store)
        #expect(record["result"] == "pin_set" && record["user"] == "bob" && record["kind"] == "enrol", "\(record)")
        let audit = redactingUUIDs(try await store.auditRecords().map { "\($0)" }.joined())  // attempt ids may hold any digits
        #expect(!audit.contains("3579") && !audit.contains("48213907"), "neither the PIN nor the code is audited")
        // The new PIN opens, the old one does not; the code is used up.
        #expect(await reference.handle(request("3579", at: "front-door")) == .granted(unlockSeconds: 4, user: "bob"))
        #expect(await reference.handle(request("1470", at: "front-door")) == .denied())
        #expect(await reference.enrol(enrolment("48213907", "4680")) == .enrolment(.refused(.invalidCode)))
        // The duress PIN is kept.
        #expect(await reference.handle(request("1471", at: "front-door")) == .granted(unlockSeconds: 4, user: "bob", duress: true))
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aWrongExpiredOrEntryCodeIsInvalidAndCountsTowardTheLockout(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await store(kind)
        defer { Task { await store.destroy() } }
        let reference = verifier(store, lockout: LockoutPolicy(maxFailures: 3))
        try await issue("55501234", to: "alice", in: store, enrolment: false)
        try await issue("77712345", to: "alice", in: store)
        #expect(await reference.enrol(enrolment("55501234", "3579")) == .enrolment(.refused(.invalidCode)), "an entry code sets no PIN")
        #expect(try await lastEnrolment(store)["user"] == nil)
        clock.advance(2 * 3600)
        #expect(await reference.enrol(enrolment("77712345", "3579")) == .enrolment(.refused(.invalidCode)), "expired")
        // Within the lockout's window (the first failure was two hours ago): expired, then two wrong.
        for _ in 0..<2 { #expect(await reference.enrol(enrolment("12121212", "3579")) == .enrolment(.refused(.invalidCode))) }
        #expect(await reference.enrol(enrolment("12121212", "3579")) == .enrolment(.refused(.lockedOut)))
        #expect(await reference.handle(request("2580", at: "front-door")) == .lockedOut, "the terminal's one lockout")
        // Signed and decided once: the same request again (its answer lost) is answered as it
        // was, with nothing set again; another request under its id is refused; an unsigned one too.
        let other = verifier(store)
        try await issue("90817263", to: "alice", in: store)
        let once = enrolment("90817263", "3579", at: "side-door", id: "enrol-1")
        #expect(await other.enrol(once) == .enrolment(.pinSet(user: "alice")))
        let setAudited = try await store.auditRecords().filter { $0["result"] == "pin_set" }.count
        #expect(await reference.enrol(once) == .repeated(.enrolment(.pinSet(user: "alice"))))
        #expect(try await store.auditRecords().filter { $0["result"] == "pin_set" }.count == setAudited)
        #expect(await other.enrol(enrolment("90817263", "3579", at: "side-door", id: "enrol-1")).refusal == .replayed, "another attempt")
        var unsigned = enrolment("90817263", "3579", at: "side-door")
        unsigned.webhookSignature = nil
        #expect(await other.enrol(unsigned).refusal == .unauthenticated)
    }

    /// The newest audit record of a PIN enrolment.
    func lastEnrolment(_ store: StoreUnderTest) async throws -> [String: String] {
        try await store.auditRecords().last { $0["event"] == "pin_enrolment" } ?? [:]
    }
}
