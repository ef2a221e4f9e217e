import Foundation
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import SiteCore
import Testing
import VerifierTestSupport

/// Visitor passes decided by the server over each real store: their doors and levels, their
/// use count (also when two instances race for the last use), their window's edges, revoke,
/// a host disabled or removed, a door in lockdown; every use audited with the visitor and host.
@Suite("Visitor passes in the reference verifier, on SQLite and PostgreSQL", .heavy)
struct VisitorPassDecisionTests {
    let siteSecret = WebhookSecret.generate()
    /// Friday 2027-01-15 08:00 UTC.
    let clock = TestWallClock()

    /// alice (PIN 2580) hosts; bob (PIN 1470) is a second user; the site's zone is UTC; level
    /// `lobby` is door `lobby-door` always.
    func store(_ kind: StoreUnderTest.Kind) async throws -> StoreUnderTest {
        let alice = try PINHash.make(pin: SecretDigits(ascii: "2580")!, iterations: 1_000)
        let bob = try PINHash.make(pin: SecretDigits(ascii: "1470")!, iterations: 1_000)
        let store = try await StoreUnderTest.make(kind, users: try UsersFile(parsing: "alice:\(alice)\nbob:\(bob)\n", source: "users"))
        try await store.administration.setTimeZone("UTC")
        try await store.administration.setLevel(name: "lobby", AccessLevel(doors: ["lobby-door"]))
        return store
    }

    func verifier(_ store: StoreUnderTest) -> ReferenceVerifier {
        ReferenceVerifier(settings: ReferenceVerifier.Settings(secret: siteSecret, unlockSeconds: 4), store: store.store, clock: clock.read)
    }

    func issuing(_ store: StoreUnderTest) -> VisitorPassIssuing {
        VisitorPassIssuing(
            administration: store.administration,
            changes: AdministratorChanges(store: store.store, by: .console("ops", role: .owner, from: "test"), now: clock.read),
            codeLength: 8, limits: VisitorPassLimits(maxDays: 30), lookupKey: nil)
    }

    func code(_ value: String, at door: String) -> ReferenceVerifier.Incoming {
        SignedAttempt.incoming("code", value, at: door, secret: siteSecret, now: clock.now)
    }

    func lastAttempt(_ store: StoreUnderTest) async throws -> [String: String] {
        try await store.auditRecords().last { $0["decision"] != nil } ?? [:]
    }

    static let granted = VerifierDecision.granted(unlockSeconds: 4, user: nil, duress: false)

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aPassOpensItsDoorsForItsUsesAndEachUseIsAuditedWithVisitorAndHost(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await store(kind)
        defer { Task { await store.destroy() } }
        let request = VisitorPassRequest(
            visitor: "Ada Lovelace", host: "alice", doors: ["front-door"], levels: ["lobby"], validUntil: SiteDate(parsing: "2027-01-15T18:00")!, maxUses: 2)
        let issued = try await issuing(store).issue(request, now: clock.now)
        #expect(issued.code.count == 8 && issued.code.allSatisfy(\.isNumber))
        let issuedRecord = try #require(try await store.auditRecords().last)
        #expect(issuedRecord["action"] == "visitor_pass_issue" && issuedRecord["admin"] == "ops" && issuedRecord["visitor"] == "Ada Lovelace")
        #expect(issuedRecord["host"] == "alice" && issuedRecord["max_uses"] == "2" && issuedRecord["pass_id"] == String(issued.pass.id))
        #expect(!issuedRecord.values.contains(issued.code), "the code is never audited")
        let reference = verifier(store)
        // Another door: refused, and not used up.
        #expect(await reference.handle(code(issued.code, at: "back-door")) == .denied())
        let refused = try await lastAttempt(store)
        #expect(refused["reason"] == "not_permitted_here" && refused["visitor"] == "Ada Lovelace" && refused["host"] == "alice" && refused["user"] == nil)
        // Its door and its level's door: two uses, then nothing.
        #expect(await reference.handle(code(issued.code, at: "front-door")) == Self.granted)
        let use = try await lastAttempt(store)
        #expect(use["decision"] == "granted" && use["reason"] == "visitor_pass" && use["visitor"] == "Ada Lovelace" && use["host"] == "alice")
        #expect(use["pass_id"] == String(issued.pass.id) && use["kind"] == "code")
        #expect(await reference.handle(code(issued.code, at: "lobby-door")) == Self.granted)
        #expect(await reference.handle(code(issued.code, at: "front-door")) == .denied())
        let pass = try #require(try await store.administration.visitorPass(id: issued.pass.id)?.pass)
        #expect(pass.uses == 2 && pass.lastDoor == "lobby-door" && pass.state(at: clock.now, zone: TimeZone(identifier: "UTC")!) == .usedUp)
        let entries = try await store.console.entries(EntryFilter(door: "lobby-door"), offset: 0, limit: 5)
        #expect(entries.first?.user == "visitor Ada Lovelace (host alice)" && entries.first?.detail == "visitor_pass", "\(entries)")
        // A wrong code is still no match.
        #expect(await reference.handle(code("99999999", at: "back-door")) == .denied())
        #expect(try await lastAttempt(store)["reason"] == "no match")
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aPassOpensOnlyInsideItsWindowToTheMinute(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await store(kind)
        defer { Task { await store.destroy() } }
        let request = VisitorPassRequest(
            visitor: "Grace", host: "alice", doors: ["front-door"], validFrom: SiteDate(parsing: "2027-01-15T09:00")!,
            validUntil: SiteDate(parsing: "2027-01-15T10:00")!, maxUses: nil)
        let issued = try await issuing(store).issue(request, now: clock.now)
        let reference = verifier(store)
        clock.advance(59 * 60 + 59)  // 08:59:59
        #expect(await reference.handle(code(issued.code, at: "front-door")) == .denied())
        #expect(try await lastAttempt(store)["reason"] == "not_yet_valid")
        clock.advance(1)  // 09:00:00
        #expect(await reference.handle(code(issued.code, at: "front-door")) == Self.granted)
        clock.advance(3599)  // 09:59:59, unlimited: any number of uses
        #expect(await reference.handle(code(issued.code, at: "front-door")) == Self.granted)
        #expect(await reference.handle(code(issued.code, at: "front-door")) == Self.granted)
        clock.advance(1)  // 10:00:00
        #expect(await reference.handle(code(issued.code, at: "front-door")) == .denied())
        #expect(try await lastAttempt(store)["reason"] == "expired")
        #expect(try await store.administration.visitorPass(id: issued.pass.id)?.pass.uses == 3)
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aRevokedPassOrOneWhoseHostIsDisabledOrRemovedOpensNothing(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await store(kind)
        defer { Task { await store.destroy() } }
        let until = SiteDate(parsing: "2027-01-16")!
        let first = try await issuing(store).issue(
            VisitorPassRequest(visitor: "Ada", host: "bob", doors: ["front-door"], validUntil: until, maxUses: nil), now: clock.now)
        let reference = verifier(store)
        try await store.administration.setAccess(user: "bob") { $0.disabled = true }
        #expect(await reference.handle(code(first.code, at: "front-door")) == .denied())
        #expect(try await lastAttempt(store)["reason"] == "disabled")
        try await store.administration.setAccess(user: "bob") { $0.disabled = false }
        #expect(await reference.handle(code(first.code, at: "front-door")) == Self.granted)
        // A host past their own validity hosts nobody (issue 78).
        try await store.administration.setAccess(user: "bob") { $0.validUntil = SiteDate(parsing: "2027-01-01") }
        #expect(await reference.handle(code(first.code, at: "front-door")) == .denied())
        #expect(try await lastAttempt(store)["reason"] == "disabled")
        try await store.administration.setAccess(user: "bob") { $0.validUntil = nil }
        #expect(await reference.handle(code(first.code, at: "front-door")) == Self.granted)
        // A host renamed keeps their passes.
        try await store.administration.rename(name: "bob", to: "robert")
        #expect(await reference.handle(code(first.code, at: "front-door")) == Self.granted)
        #expect(try await lastAttempt(store)["host"] == "robert")
        _ = try await store.administration.remove(name: "robert")
        #expect(await reference.handle(code(first.code, at: "front-door")) == .denied())
        #expect(try await lastAttempt(store)["reason"] == "no match", "a removed host's passes are revoked with them")
        // A new user of the same name hosts none of the old one's visitors (issue 78).
        try await store.administration.add(name: "robert", hash: try PINHash.make(pin: SecretDigits(ascii: "3690")!, iterations: 1_000), tag: nil)
        #expect(await reference.handle(code(first.code, at: "front-door")) == .denied())
        #expect(try await store.administration.visitorPass(id: first.pass.id)?.pass.revoked != nil)

        let second = try await issuing(store).issue(VisitorPassRequest(visitor: "Ada", host: "alice", doors: ["front-door"], validUntil: until), now: clock.now)
        try await issuing(store).revoke(id: second.pass.id, now: clock.now)
        #expect(await reference.handle(code(second.code, at: "front-door")) == .denied())
        #expect(try await lastAttempt(store)["reason"] == "no match")
        #expect(try await store.administration.visitorPass(id: second.pass.id)?.pass.uses == 0)
        await #expect(throws: UserEditError.self) { try await issuing(store).revoke(id: second.pass.id, now: clock.now) }
        let revoked = try #require(try await store.auditRecords().last { $0["action"] == "visitor_pass_revoke" })
        #expect(revoked["pass_id"] == String(second.pass.id) && revoked["admin"] == "ops")

        // Lockdown: a visitor is no responder.
        let third = try await issuing(store).issue(VisitorPassRequest(visitor: "Ada", host: "alice", doors: ["front-door"], validUntil: until), now: clock.now)
        _ = try await store.administration.setMode(.lockdown, door: nil, by: "ops", at: clock.now)
        #expect(await reference.handle(code(third.code, at: "front-door")) == .denied())
        #expect(try await lastAttempt(store)["reason"] == "lockdown")
        #expect(try await store.administration.visitorPass(id: third.pass.id)?.pass.uses == 0)
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func twoInstancesRacingForAOneUsePassAdmitOnce(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await store(kind)
        defer { Task { await store.destroy() } }
        let until = SiteDate(parsing: "2027-01-16")!
        let doors = ["door-a", "door-b", "door-c", "door-d"]
        for round in 0..<5 {
            let issued = try await issuing(store).issue(
                VisitorPassRequest(visitor: "Ada", host: "alice", doors: doors, validUntil: until, maxUses: 1), now: clock.now)
            // Two verifiers (as two instances share one store), four doors at once.
            let instances = [verifier(store), verifier(store)]
            let answers = await withTaskGroup(of: VerifierDecision.self) { group in
                for (index, door) in doors.enumerated() {
                    let request = code(issued.code, at: door)
                    group.addTask { await instances[index % 2].handle(request) }
                }
                return await group.reduce(into: [VerifierDecision]()) { $0.append($1) }
            }
            #expect(answers.filter { $0 == Self.granted }.count == 1, "round \(round): \(answers)")
            #expect(try await store.administration.visitorPass(id: issued.pass.id)?.pass.uses == 1)
        }
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aRequestIsCheckedAgainstTheSiteBeforeAnythingIsStored(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await store(kind)
        defer { Task { await store.destroy() } }
        let until = SiteDate(parsing: "2027-01-16")!
        let cases: [(VisitorPassRequest, String)] = [
            (VisitorPassRequest(visitor: "Ada", host: "nobody", doors: ["a"], validUntil: until), "host: there is no user 'nobody'"),
            (VisitorPassRequest(visitor: "Ada", host: "alice", levels: ["nope"], validUntil: until), "levels: there is no access level 'nope' (known: lobby)"),
            (VisitorPassRequest(visitor: "Ada", host: "alice", doors: ["a"], schedule: "nope", validUntil: until), "schedule: there is no schedule 'nope'"),
            (VisitorPassRequest(visitor: "Ada", host: "alice", validUntil: until), "doors: a pass opens at least one door"),
            (VisitorPassRequest(visitor: "<b>Ada</b>", host: "alice", doors: ["a"], validUntil: until), "visitor: a visitor's name is"),
            (
                VisitorPassRequest(visitor: "Ada", host: "alice", doors: ["a"], validUntil: SiteDate(parsing: "2027-01-15T07:00")!),
                "valid_until: 2027-01-15T07:00 has passed"
            ),
            (
                VisitorPassRequest(visitor: "Ada", host: "alice", doors: ["a"], validUntil: SiteDate(parsing: "2027-03-01")!),
                "valid_until: the pass would last more than the site allows (30 days"
            ),
            (VisitorPassRequest(visitor: "Ada", host: "alice", doors: ["a"], validUntil: until, maxUses: 0), "max_uses: 0 is not from 1 to 10000"),
        ]
        for (request, problem) in cases {
            do {
                _ = try await issuing(store).issue(request, now: clock.now)
                Issue.record("issued: \(request)")
            } catch let error as UserEditError {
                #expect(error.description.hasPrefix(problem), "\(error.description)")
            }
        }
        #expect(try await store.administration.visitorPasses(since: .distantPast).passes.isEmpty)
        #expect(try await store.auditRecords().allSatisfy { $0["action"] != "visitor_pass_issue" })
    }
}
