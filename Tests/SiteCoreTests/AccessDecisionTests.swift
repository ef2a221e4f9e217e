import Foundation
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import SiteCore
import Testing
import VerifierTestSupport

/// Who may enter where and when, decided by the server over each real store: doors,
/// schedules, validity, disabled users, codes for one door, duress outside the rules, and
/// doors that sign with their own secret.
@Suite("Access rules in the reference verifier, on SQLite and PostgreSQL", .heavy)
struct AccessDecisionTests {
    let siteSecret = WebhookSecret.generate()
    /// Friday 2027-01-15 08:00 UTC.
    let clock = TestWallClock()

    /// alice (PIN 2580, every door) and bob (PIN 1470, duress PIN 1471) in a new store whose site zone is UTC.
    func store(_ kind: StoreUnderTest.Kind) async throws -> StoreUnderTest {
        let alice = try PINHash.make(pin: SecretDigits(ascii: "2580")!, iterations: 1_000)
        let bob = try PINHash.make(pin: SecretDigits(ascii: "1470")!, iterations: 1_000)
        let bobDuress = try PINHash.make(pin: SecretDigits(ascii: "1471")!, iterations: 1_000)
        let users = try UsersFile(parsing: "alice:\(alice)\nbob:\(bob)\nbob:\(bobDuress):duress\n", source: "users")
        let store = try await StoreUnderTest.make(kind, users: users)
        try await store.administration.setTimeZone("UTC")
        return store
    }

    func verifier(_ store: StoreUnderTest, lockout: LockoutPolicy = LockoutPolicy()) -> ReferenceVerifier {
        ReferenceVerifier(settings: ReferenceVerifier.Settings(secret: siteSecret, unlockSeconds: 4, lockout: lockout), store: store.store, clock: clock.read)
    }

    func request(_ value: String, at door: String, kind: String = "pin", secret: WebhookSecret? = nil) -> ReferenceVerifier.Incoming {
        let id = UUID().uuidString
        let body = Array(
            "{\"terminal_id\":\"\(door)\",\"kind\":\"\(kind)\",\"value\":\"\(value)\",\"attempt_id\":\"\(id)\",\"entered_at\":\"2027-01-15T08:00:00Z\"}".utf8)
        let seconds = Int(clock.now.timeIntervalSince1970)
        return ReferenceVerifier.Incoming(
            contentType: "application/json", webhookID: id, webhookTimestamp: String(seconds),
            webhookSignature: WebhookSignature.sign(id: id, timestamp: seconds, body: body, secret: secret ?? siteSecret), body: body)
    }

    /// The newest audit record of an attempt (not the separate duress event).
    func lastAttempt(_ store: StoreUnderTest) async throws -> [String: String] {
        try await store.auditRecords().last { $0["decision"] != nil } ?? [:]
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aUserAllowedAtOneDoorIsDeniedAtAnotherWithoutCountingTowardLockout(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await store(kind)
        defer { Task { await store.destroy() } }
        try await store.administration.setAccess(user: "bob") { $0.doors = ["front-door"] }
        let reference = verifier(store, lockout: LockoutPolicy(maxFailures: 2))
        #expect(await reference.handle(request("1470", at: "front-door")) == .granted(unlockSeconds: 4, user: "bob"))
        for _ in 0..<3 {
            #expect(await reference.handle(request("1470", at: "back-door")) == .denied())
        }
        let refused = try await lastAttempt(store)
        #expect(refused["reason"] == "not_permitted_here" && refused["user"] == "bob" && refused["terminal_id"] == "back-door")
        // Three refusals of a right PIN did not lock back-door; two wrong PINs do.
        #expect(await reference.handle(request("2580", at: "back-door")) == .granted(unlockSeconds: 4, user: "alice"))
        _ = await reference.handle(request("0000", at: "back-door"))
        _ = await reference.handle(request("0001", at: "back-door"))
        #expect(await reference.handle(request("2580", at: "back-door")) == .lockedOut)
        try await store.administration.setAccess(user: "bob") { $0.doors = nil }
        #expect(await reference.handle(request("1470", at: "side-door")) == .granted(unlockSeconds: 4, user: "bob"))
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aScheduleThatExcludesNowDeniesAndOneThatIncludesItGrants(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await store(kind)
        defer { Task { await store.destroy() } }
        let admin = store.administration
        try await admin.setSchedule(name: "cleaning", spec: "mon-fri 18:00-21:00; sat 08:00-12:00")
        try await admin.setAccess(user: "bob") { $0.schedule = "cleaning" }
        let reference = verifier(store)
        #expect(await reference.handle(request("1470", at: "front-door")) == .denied())  // Friday 08:00
        #expect(try await lastAttempt(store)["reason"] == "outside_schedule")
        clock.advance(10 * 3600)  // Friday 18:00
        #expect(await reference.handle(request("1470", at: "front-door")) == .granted(unlockSeconds: 4, user: "bob"))
        // The site zone moves the same instant out of the window: 18:00 UTC is 13:00 in New York.
        try await admin.setTimeZone("America/New_York")
        #expect(await reference.handle(request("1470", at: "front-door")) == .denied())
        await #expect(throws: UserEditError.self) { try await admin.removeSchedule(name: "cleaning") }  // bob has it
        await #expect(throws: UserEditError.self) { try await admin.setAccess(user: "bob") { $0.schedule = "nope" } }
        await #expect(throws: UserEditError.self) { try await admin.setSchedule(name: "bad", spec: "mon 25:00-26:00") }
        await #expect(throws: UserEditError.self) { try await admin.setTimeZone("Mars/Olympus") }
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func validityAndDisableRefuseWithoutDeleting(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await store(kind)
        defer { Task { await store.destroy() } }
        let admin = store.administration
        let reference = verifier(store)
        try await admin.setAccess(user: "bob") { $0.validUntil = SiteDate(parsing: "2027-01-14") }  // yesterday
        #expect(await reference.handle(request("1470", at: "front-door")) == .denied())
        #expect(try await lastAttempt(store)["reason"] == "expired")
        try await admin.setAccess(user: "bob") {
            $0.validUntil = nil
            $0.validFrom = SiteDate(parsing: "2027-01-15T09:00")
        }
        #expect(await reference.handle(request("1470", at: "front-door")) == .denied())
        #expect(try await lastAttempt(store)["reason"] == "not_yet_valid")
        clock.advance(3600)
        #expect(await reference.handle(request("1470", at: "front-door")) == .granted(unlockSeconds: 4, user: "bob"))
        try await admin.setAccess(user: "alice") { $0.disabled = true }
        #expect(await reference.handle(request("2580", at: "front-door")) == .denied())
        #expect(try await lastAttempt(store)["reason"] == "disabled")
        #expect(try await admin.list().contains { $0.name == "alice" })
        try await admin.setAccess(user: "alice") { $0.disabled = false }
        #expect(await reference.handle(request("2580", at: "front-door")) == .granted(unlockSeconds: 4, user: "alice"))
        await #expect(throws: UserEditError.self) { try await admin.setAccess(user: "nobody") { $0.disabled = true } }
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aDuressPINOutsideItsRulesIsDeniedAndStillAuditedAsDuress(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await store(kind)
        defer { Task { await store.destroy() } }
        try await store.administration.setAccess(user: "bob") { $0.doors = ["front-door"] }
        let reference = verifier(store)
        #expect(await reference.handle(request("1471", at: "back-door")) == .denied())
        let records = try await store.auditRecords()
        let attempt = try await lastAttempt(store)
        #expect(attempt["reason"] == "not_permitted_here" && attempt["duress"] == "true" && attempt["user"] == "bob")
        #expect(records.last?["event"] == "duress" && records.last?["user"] == "bob" && records.last?["terminal_id"] == "back-door")
        #expect(await reference.handle(request("1471", at: "front-door")) == .granted(unlockSeconds: 4, user: "bob", duress: true))
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aCodeForOneDoorIsDeniedAndNotUsedUpAtAnother(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await store(kind)
        defer { Task { await store.destroy() } }
        let code = try await store.issueCode(user: "alice", ttl: 600, now: clock.now, door: "front-door")
        let reference = verifier(store)
        #expect(await reference.handle(request(code, at: "back-door", kind: "code")) == .denied())
        #expect(try await lastAttempt(store)["reason"] == "not_permitted_here")
        #expect(await reference.handle(request(code, at: "front-door", kind: "code")) == .granted(unlockSeconds: 4, user: "alice"))
        #expect(await reference.handle(request(code, at: "front-door", kind: "code")) == .denied())  // used once
        // A code of a user the rules refuse is not used up either.
        let later = try await store.issueCode(user: "bob", ttl: 600, now: clock.now)
        try await store.administration.setAccess(user: "bob") { $0.disabled = true }
        #expect(await reference.handle(request(later, at: "front-door", kind: "code")) == .denied())
        try await store.administration.setAccess(user: "bob") { $0.disabled = false }
        #expect(await reference.handle(request(later, at: "front-door", kind: "code")) == .granted(unlockSeconds: 4, user: "bob"))
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aTOTPCodeRefusedByTheRulesDoesNotUseUpItsStep(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await store(kind)
        defer { Task { await store.destroy() } }
        let carol = try PINHash.make(pin: SecretDigits(ascii: "3690")!, iterations: 1_000)
        let secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
        #expect(try await store.administration.importUsers(try UsersFile(parsing: "carol:\(carol):totp=\(secret)\n", source: "users")) == 1)
        try await store.administration.setAccess(user: "carol") { $0.doors = ["front-door"] }
        let code = TOTP(secret: TOTP.base32Decode(secret)!).code(step: Int(clock.now.timeIntervalSince1970) / 30)
        let reference = verifier(store)
        #expect(await reference.handle(request(code, at: "back-door", kind: "code")) == .denied())
        #expect(try await lastAttempt(store)["reason"] == "not_permitted_here")
        #expect(await reference.handle(request(code, at: "front-door", kind: "code")) == .granted(unlockSeconds: 4, user: "carol"))
        #expect(await reference.handle(request(code, at: "front-door", kind: "code")) == .denied())  // each step once
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aDoorWithItsOwnSecretRefusesTheSiteSecret(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await store(kind)
        defer { Task { await store.destroy() } }
        let doorSecret = WebhookSecret.generate()
        try await store.administration.addDoor(terminalID: "front-door", secret: doorSecret)
        await #expect(throws: UserEditError.self) { try await store.administration.addDoor(terminalID: "front-door", secret: .generate()) }
        let reference = verifier(store)
        #expect(await reference.handle(request("2580", at: "front-door")).refusal == .unauthenticated)
        #expect(await reference.handle(request("2580", at: "front-door", secret: doorSecret)) == .granted(unlockSeconds: 4, user: "alice"))
        // A name that reads as the door's is refused before any key is chosen.
        for lookAlike in [" front-door", "front-door ", "front-door\u{200B}"] {
            #expect(await reference.handle(request("2580", at: lookAlike)).refusal == .malformed, "\(lookAlike.unicodeScalars.map(\.value))")
        }
        // Its secret is not a site secret: it cannot claim another door.
        #expect(await reference.handle(request("2580", at: "back-door", secret: doorSecret)).refusal == .unauthenticated)
        #expect(await reference.handle(request("2580", at: "back-door")) == .granted(unlockSeconds: 4, user: "alice"))
        #expect(try await store.administration.doors().map(\.terminalID) == ["front-door"])
        #expect(try await store.administration.removeDoor(terminalID: "front-door"))
        #expect(await reference.handle(request("2580", at: "front-door", secret: doorSecret)).refusal == .unauthenticated)
        #expect(await reference.handle(request("2580", at: "front-door")) == .granted(unlockSeconds: 4, user: "alice"))
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func usersOfASchemaFromBeforeRulesKeepEveryDoorAlwaysAfterTheUpgrade(_ kind: StoreUnderTest.Kind) async throws {
        let alice = try PINHash.make(pin: SecretDigits(ascii: "2580")!, iterations: 1_000)
        let old = try await StoreUnderTest.make(kind, users: try UsersFile(parsing: "alice:\(alice)\n", source: "users"), schemaVersion: 1)
        await old.close()
        let store = try await old.reopened()
        defer { Task { await store.destroy() } }
        let site = try await store.administration.siteRules()
        #expect(site.rules.isEmpty && site.timeZone == TimeZone.current.identifier)
        let reference = verifier(store)
        for door in ["front-door", "back-door", "door-\(Int.random(in: 1...99))"] {
            #expect(await reference.handle(request("2580", at: door)) == .granted(unlockSeconds: 4, user: "alice"))
        }
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func importAddsRulesOnceAndRefusesOtherRulesForAUserThatIsThere(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await store(kind)
        defer { Task { await store.destroy() } }
        let admin = store.administration
        try await admin.setSchedule(name: "nights", spec: "daily 22:00-06:00")
        try await admin.setAccess(user: "bob") {
            $0.doors = ["front-door"]
            $0.schedule = "nights"
        }
        let exported = UsersFile.text(for: try await admin.records(), site: try await admin.siteRules(), header: "test")
        let file = try UsersFile(parsing: exported, source: "exported")
        #expect(file.site.rules["bob"] == AccessRule(doors: ["front-door"], schedule: "nights"))
        #expect(try await admin.importUsers(file) == 0)  // all there: nothing added, nothing changed
        let carol = try PINHash.make(pin: SecretDigits(ascii: "3690")!, iterations: 1_000)
        let more = try UsersFile(parsing: exported + "carol:\(carol)\n@access carol schedule=nights\n", source: "more")
        #expect(try await admin.importUsers(more) == 1)
        #expect(try await admin.siteRules().rules["carol"]?.schedule == "nights")
        let other = try UsersFile(
            parsing: exported.replacingOccurrences(of: "@access bob doors=front-door", with: "@access bob doors=back-door"), source: "other")
        await #expect { try await admin.importUsers(other) } throws: { error in
            (error as? UsersImport.Clash)?.description.contains("user 'bob': the database has other access rules") == true
        }
        // A file that says nothing of bob's rules (an old one) leaves them as they are.
        let old = try UsersFile(parsing: exported.split(separator: "\n").filter { !$0.hasPrefix("@") }.joined(separator: "\n"), source: "old")
        #expect(try await admin.importUsers(old) == 0)
        #expect(try await admin.siteRules().rules["bob"] == AccessRule(doors: ["front-door"], schedule: "nights"))
        // Another zone is a clash once rules use the zone; a new database takes the file's.
        let berlin = try UsersFile(parsing: exported.replacingOccurrences(of: "@time_zone UTC", with: "@time_zone Europe/Berlin"), source: "berlin")
        await #expect(throws: UsersImport.Clash.self) { try await admin.importUsers(berlin) }
        let fresh = try await StoreUnderTest.make(kind)
        defer { Task { await fresh.destroy() } }
        #expect(try await fresh.administration.importUsers(berlin) == 3)
        #expect(try await fresh.administration.siteRules().timeZone == "Europe/Berlin")
    }
}
