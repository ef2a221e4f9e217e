import Foundation
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import SiteCore
import Testing
import VerifierTestSupport

/// `POST /v1/credentials` with `have_mark` over each real store: after changes of users
/// alone a door gets a delta naming just them, which brings its replica to what a whole one
/// would hold; after anything else, with another mark or with none, the whole replica.
@Suite("Replica deltas, on SQLite and PostgreSQL", .heavy)
struct ReplicaDeltaTests {
    let siteSecret = WebhookSecret.generate()
    let clock = TestWallClock()

    static func hash(_ pin: String) throws -> PINHash { try PINHash.make(pin: SecretDigits(ascii: pin)!, iterations: 1_000) }

    func request(door: String = "front", have: Int64, mark: String?) -> ReferenceVerifier.Incoming {
        let markField = mark.map { ",\"have_mark\":\"\($0)\"" } ?? ""
        let body = Array("{\"terminal_id\":\"\(door)\",\"have_version\":\(have)\(markField)}".utf8)
        let id = "msg_\(UUID().uuidString)"
        let seconds = Int(clock.now.timeIntervalSince1970)
        return ReferenceVerifier.Incoming(
            contentType: "application/json", webhookID: id, webhookTimestamp: String(seconds),
            webhookSignature: WebhookSignature.sign(id: id, timestamp: seconds, body: body, secret: siteSecret), body: body)
    }

    /// The site's changes as an administrator makes them: through the layer, each with its entry.
    struct Site {
        let under: StoreUnderTest
        let keeping: any ReplicaKeeping
        var changes: AdministratorChanges { AdministratorChanges(store: under.store, by: .commandLine(["USER": "test"])) }

        func add(_ name: String, _ pin: String) async throws {
            let (administration, keeping, hash) = (under.administration, keeping, try ReplicaDeltaTests.hash(pin))
            try await changes.apply(.userAdd, [("user", name)]) {
                try await administration.add(name: name, hash: hash, tag: nil)
                try await keeping.tagForReplica(name: name, hash: hash, value: SecretDigits(ascii: pin)!, kind: .pin)
            }
        }

        func rule(_ name: String, action: AdministratorAction = .userRule, _ patch: @escaping @Sendable (inout AccessRule) -> Void) async throws {
            let administration = under.administration
            try await changes.apply(action, [("user", name)]) { _ = try await administration.setAccess(user: name, patch) }
        }
    }

    /// A store of `kind`, its site as an administrator changes it, and its replica service.
    func open(_ kind: StoreUnderTest.Kind) async throws -> (under: StoreUnderTest, site: Site, service: CredentialService) {
        let under = try await StoreUnderTest.make(kind)
        let keeping = try #require(under.administration as? any ReplicaKeeping)
        let service = CredentialService(
            keeping: keeping, administration: under.administration, store: under.store, siteSecret: siteSecret, clock: clock.read)
        return (under, Site(under: under, keeping: keeping), service)
    }

    func ask(_ service: CredentialService, door: String = "front", have: Int64, mark: String?, key: ReplicaPublicKey) async throws -> ReplicaMessage {
        try SignedReplica(json: try #require(await service.handle(request(door: door, have: have, mark: mark)).json)).open(with: key)
    }

    /// Twenty doors holding one version ask at once after a change: they share one read of what
    /// the delta is made from (``ReplicaBuilds``), and each gets its own delta, for what it may
    /// open; the next change reads again.
    @Test(arguments: StoreUnderTest.Kind.allCases)
    func doorsHoldingOneVersionShareOneReadOfTheirDeltas(_ kind: StoreUnderTest.Kind) async throws {
        let (under, site, service) = try await open(kind)
        defer { Task { await under.destroy() } }
        let key = try await site.keeping.publicKey()
        for (name, pin) in [("ann", "4821"), ("ben", "5932"), ("cat", "6043")] { try await site.add(name, pin) }
        try await site.rule("cat") { $0.doors = ["back"] }
        guard case .replica(let first) = try await ask(service, door: "door-0", have: 0, mark: nil, key: key), let mark = first.mark else {
            Issue.record("a door with no replica gets the whole one, with its mark")
            return
        }
        try await site.rule("ben", action: .userDisable) { $0.disabled = true }
        try await site.rule("cat") { $0.doors = ["back", "door-3"] }
        let doors = (0..<20).map { "door-\($0)" }
        let deltas = try await withThrowingTaskGroup(of: CredentialReplicaDelta.self) { group in
            for door in doors {
                group.addTask {
                    guard case .delta(let delta) = try await ask(service, door: door, have: first.version, mark: mark, key: key) else {
                        throw UserEditError(description: "\(door) got no delta")
                    }
                    return delta
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(await service.builds.deltaReads == 1, "one read of the site for 20 doors holding one version")
        for delta in deltas {
            #expect(delta.users == ["ben", "cat"] && delta.fromVersion == first.version, "\(delta.terminalID)")
            let expected: Set<String> = delta.terminalID == "door-3" ? ["cat"] : []
            #expect(Set(delta.entries.map(\.user)) == expected, "\(delta.terminalID): \(delta.entries.map(\.user))")
        }
        try await site.add("dan", "8520")
        guard case .delta(let next) = try await ask(service, door: "door-5", have: first.version, mark: mark, key: key) else {
            Issue.record("after another change, a delta")
            return
        }
        #expect(next.users == ["ben", "cat", "dan"] && Set(next.entries.map(\.user)) == ["dan"])
        #expect(await service.builds.deltaReads == 2)
    }

    /// A replica's lines as comparable text.
    static func lines(_ replica: CredentialReplica) -> Set<String> {
        Set(replica.entries.map { "\($0.user) \($0.kind) \($0.hash) \($0.tag ?? "-")" })
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func afterUsersChangedADoorGetsTheirLinesAloneAndHoldsWhatAWholeReplicaHolds(_ kind: StoreUnderTest.Kind) async throws {
        let (under, site, service) = try await open(kind)
        defer { Task { await under.destroy() } }
        let (administration, changes, keeping) = (under.administration, site.changes, site.keeping)
        let key = try await keeping.publicKey()
        try await changes.apply(.scheduleSet, [("schedule", "office")]) { try await administration.setSchedule(name: "office", spec: "mon-fri 08:00-18:00") }
        // Three tagged lines here before, four after: 6 bits of each tag both times.
        for (name, pin) in [("ann", "4821"), ("ben", "5932"), ("cat", "6043"), ("fay", "2468")] { try await site.add(name, pin) }
        try await site.rule("cat") { $0.doors = ["back"] }
        guard case .replica(let first) = try await ask(service, have: 0, mark: nil, key: key), let mark = first.mark else {
            Issue.record("a door with no replica gets the whole one, with its mark")
            return
        }
        #expect(first.entries.map(\.user) == ["ann", "ben", "fay"] && first.tagBits == 6)

        // ann's PIN changes, ben is disabled, cat may now open the front door, dan is new with a
        // schedule; an alert acknowledged and a code issued are no replica's business.
        let users = UsersEditing(administration: administration, replica: keeping, lookupKey: nil, changes: changes)
        try await users.set(.pin, of: "ann", to: SecretDigits(ascii: "7410")!, iterations: 1_000)
        try await site.rule("ben", action: .userDisable) { $0.disabled = true }
        try await site.rule("cat") { $0.doors = ["back", "front"] }
        try await site.add("dan", "8520")
        try await site.rule("dan") { $0.schedule = "office" }
        try await changes.apply(.alertAcknowledge, [("alert", "door_forced")]) {}
        guard case .delta(let delta) = try await ask(service, have: first.version, mark: mark, key: key) else {
            Issue.record("after users' changes alone, a delta")
            return
        }
        #expect(delta.users == ["ann", "ben", "cat", "dan"] && delta.fromVersion == first.version)
        #expect(Set(delta.entries.map(\.user)) == ["ann", "cat", "dan"], "ben may no longer open it: named, with no line")
        #expect(delta.schedules == ["office": "mon-fri 08:00-18:00"] && delta.rules["dan"] == "schedule=office")
        let applied = try first.applying(delta)
        guard case .replica(let whole) = try await ask(service, have: 0, mark: nil, key: key) else {
            Issue.record("a door with no replica still gets the whole one")
            return
        }
        #expect(applied.version == whole.version && applied.mark == whole.mark)
        #expect(Self.lines(applied) == Self.lines(whole) && applied.tagBits == whole.tagBits)
        #expect(applied.rules == whole.rules && applied.schedules == whole.schedules)
        #expect(delta.entries.allSatisfy { $0.tag?.count == 8 }, "tags cut to 32 bits; the door cuts them to its own")

        // A door at the current version is confirmed; one with another history's mark, or none, gets the whole replica.
        guard case .confirmation = try await ask(service, have: whole.version, mark: whole.mark, key: key) else {
            Issue.record("the current version is confirmed")
            return
        }
        try await site.add("eve", "9630")
        for mark in ["1", nil] {
            guard case .replica = try await ask(service, have: whole.version, mark: mark, key: key) else {
                Issue.record("mark \(mark ?? "none"): the whole replica")
                return
            }
        }
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aScheduleAHolidayOrAWriteThatNamesNoUserBringsTheWholeReplica(_ kind: StoreUnderTest.Kind) async throws {
        let (under, site, service) = try await open(kind)
        defer { Task { await under.destroy() } }
        let (administration, changes, keeping) = (under.administration, site.changes, site.keeping)
        let key = try await keeping.publicKey()
        try await site.add("ann", "4821")
        let changesOfMore: [@Sendable () async throws -> Void] = [
            {
                try await changes.apply(.scheduleSet, [("schedule", "night")]) {
                    try await administration.setSchedule(name: "night", spec: "daily 22:00-06:00")
                }
            },
            {
                try await changes.apply(.holidaySet, [("date", "2027-12-25")]) {
                    try await administration.setHoliday(try Holiday(day: "2027-12-25", words: []))
                }
            },
            // A user added outside the layer: the database's own entry names nothing.
            { try await administration.add(name: "bo", hash: try Self.hash("5932"), tag: nil) },
        ]
        for change in changesOfMore {
            guard case .replica(let held) = try await ask(service, have: 0, mark: nil, key: key), let mark = held.mark else {
                Issue.record("the whole replica, with its mark")
                return
            }
            try await site.add("u\(held.version)", "1357")
            try await change()
            guard case .replica(let next) = try await ask(service, have: held.version, mark: mark, key: key) else {
                Issue.record("after version \(held.version): the whole replica")
                return
            }
            #expect(next.version > held.version)
        }
        // A mark that is no mark is refused, naming the field.
        let answer = await service.handle(request(have: 1, mark: ""))
        #expect(answer.json == nil && answer.text.contains("have_mark"))
    }
}
