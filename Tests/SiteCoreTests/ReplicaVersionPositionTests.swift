import Foundation
import KioskPadAccess
import KioskPadCore
import SiteCore
import Testing
import VerifierTestSupport

/// The replica's version is a change-log position (schema version 24, issue 79): a committed
/// change of who may enter moves it to the position of its transaction's last entry (an
/// administrator's, or one the database writes for a door's write), anything else leaves it;
/// an upgraded database's positions start above every version its doors hold.
@Suite("The replica's version as a change-log position, on SQLite and PostgreSQL", .heavy)
struct ReplicaVersionPositionTests {
    static func keeping(_ under: StoreUnderTest) throws -> any ReplicaKeeping {
        try #require(under.administration as? any ReplicaKeeping)
    }

    static func hash(_ pin: String) throws -> PINHash {
        try PINHash.make(pin: SecretDigits(ascii: pin)!, iterations: 1_000)
    }

    static func log(_ under: StoreUnderTest) async throws -> [LoggedChange] {
        try await under.store.changeLog(after: 0, limit: 1_000)
    }

    /// The pending mark is cleared when the transaction that set it commits.
    static func pending(_ under: StoreUnderTest) async throws -> String {
        try await under.rows(sqlite: "SELECT pending FROM kioskpad_replica", postgres: "SELECT pending::int FROM kioskpad_replica").first?.first ?? "?"
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aChangeOfWhoMayEnterMovesTheVersionToItsEntryAndNothingElseMovesIt(_ kind: StoreUnderTest.Kind) async throws {
        let under = try await StoreUnderTest.make(kind)
        defer { Task { await under.destroy() } }
        let keeping = try Self.keeping(under)
        let first = try await Self.log(under)
        #expect(first.map(\.entry.cause) == [.schemaUpgrade], "a new database's one entry")
        #expect(try await keeping.replicaVersion() == first.last?.sequence)

        let administration = under.administration
        let hash = try Self.hash("4826")
        try await AdministratorChanges(store: under.store, by: .commandLine(["USER": "test"])).apply(.userAdd, [("user", "ana")]) {
            try await administration.add(name: "ana", hash: hash, tag: nil)
        }
        let added = try await Self.log(under)
        #expect(added.last?.entry == ChangeLogEntry(kind: .user, subject: "ana", action: .userAdd))
        #expect(try await keeping.replicaVersion() == added.last?.sequence, "the version is the change's own position")
        #expect(added.count == 2, "no entry beside the administrator's: \(added.map(\.entry))")
        #expect(try await Self.pending(under) == "0")

        // Logged, but who may enter is the same: the version stays where it was.
        let before = try await keeping.replicaVersion()
        try await AdministratorChanges(store: under.store, by: .commandLine(["USER": "test"])).apply(.alertAcknowledge, [("alert", "door_forced")]) {}
        #expect(try await Self.log(under).count == 3)
        #expect(try await keeping.replicaVersion() == before)
    }

    /// A write that is no administrator's change (here the replica tag set on its own, in
    /// autocommit on PostgreSQL, and a user added outside the layer) gets an entry of its own.
    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aWriteWithoutAnEntryGetsOneOfItsOwn(_ kind: StoreUnderTest.Kind) async throws {
        let under = try await StoreUnderTest.make(kind)
        defer { Task { await under.destroy() } }
        let keeping = try Self.keeping(under)
        let hash = try Self.hash("4826")
        try await under.administration.add(name: "bo", hash: hash, tag: nil)
        try await keeping.setReplicaTag(name: "bo", hash: hash, tag: "t0")
        let log = try await Self.log(under)
        #expect(log.map(\.entry.cause) == [.schemaUpgrade, .door, .door])
        #expect(log.dropFirst().allSatisfy { $0.entry.kind == .replica && $0.entry.subject.isEmpty })
        #expect(try await keeping.replicaVersion() == log.last?.sequence)
        #expect(try await Self.pending(under) == "0")
    }

    /// A statement on a table that decides who may enter that changes no row of it marks
    /// nothing: no entry, the version where it was (PostgreSQL's triggers per row from schema
    /// version 25; before, each of these moved the version, and a door got its whole replica).
    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aStatementThatChangesNoRowMovesNothing(_ kind: StoreUnderTest.Kind) async throws {
        let under = try await StoreUnderTest.make(kind)
        defer { Task { await under.destroy() } }
        let keeping = try Self.keeping(under)
        let (version, entries) = (try await keeping.replicaVersion(), try await Self.log(under).count)
        for statement in [
            "INSERT INTO kioskpad_site (key, value) VALUES ('time_zone', 'UTC') ON CONFLICT (key) DO NOTHING",
            "UPDATE kioskpad_users SET enabled = enabled WHERE name = 'nobody'",
            "DELETE FROM kioskpad_schedules WHERE name = 'nothing'",
            "UPDATE kioskpad_access SET rule = rule WHERE user_name = 'nobody'",
            "DELETE FROM kioskpad_holidays WHERE day = 'never'",
        ] {
            try await under.execute(sqlite: statement, postgres: statement)
            #expect(try await keeping.replicaVersion() == version, "\(statement)")
        }
        #expect(try await Self.log(under).count == entries)
        #expect(try await Self.pending(under) == "0")
    }

    /// A door's attempt that learns a card or sets a PIN chosen there logs it, naming the
    /// user; an attempt that changes nothing of who may enter logs nothing.
    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aDoorsAttemptThatChangesAUserLogsItNamingThem(_ kind: StoreUnderTest.Kind) async throws {
        let under = try await StoreUnderTest.make(kind)
        defer { Task { await under.destroy() } }
        let keeping = try Self.keeping(under)
        try await under.administration.add(name: "bo", hash: try Self.hash("4826"), tag: nil)
        let before = try await Self.log(under).count
        let card = UnknownCardHash(hash: try Self.hash("00065537"), lookupTag: nil, replicaTag: nil, digits: 8)
        let (learned, chosen) = try await under.store.commitAttempt(terminal: "front", policy: LockoutPolicy()) { _, transaction in
            let learned = try await transaction.addCard(user: "bo", card)
            let chosen = try await transaction.setPIN(user: "bo", hash: try Self.hash("7391"), tag: nil, replicaTag: nil)
            try await transaction.audit([("decision", "granted")])
            return (learned, chosen)
        }
        #expect(learned && chosen)
        let log = try await Self.log(under)
        #expect(log.dropFirst(before).map(\.entry) == Array(repeating: ChangeLogEntry(kind: .user, subject: "bo", cause: .door), count: 2))
        #expect(try await keeping.replicaVersion() == log.last?.sequence)
        let version = try await keeping.replicaVersion()
        _ = try await under.store.commitAttempt(terminal: "front", policy: LockoutPolicy()) { _, transaction in
            try await transaction.audit([("decision", "denied")])
        }
        let (count, after) = (try await Self.log(under).count, try await keeping.replicaVersion())
        #expect(count == log.count && after == version, "a plain attempt logs nothing")
    }

    /// Administrators' changes and doors' writes at once: every one commits (no two wait for
    /// each other on PostgreSQL's lock and the replica row), and the version ends on the last
    /// position, each position taken once.
    @Test(arguments: StoreUnderTest.Kind.allCases)
    func changesAndDoorWritesAtOnceEndOnTheLastPosition(_ kind: StoreUnderTest.Kind) async throws {
        let under = try await StoreUnderTest.make(kind)
        defer { Task { await under.destroy() } }
        let (store, administration) = (under.store, under.administration)
        let hash = try Self.hash("4826")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 0..<6 {
                group.addTask {
                    try await AdministratorChanges(store: store, by: .commandLine(["USER": "test"])).apply(.userAdd, [("user", "admin-\(n)")]) {
                        try await administration.add(name: "admin-\(n)", hash: hash, tag: nil)
                    }
                }
                group.addTask { try await administration.add(name: "door-\(n)", hash: hash, tag: nil) }
            }
            try await group.waitForAll()
        }
        let log = try await Self.log(under)
        #expect(log.filter { $0.entry.cause == .administrator(.userAdd) }.count == 6)
        #expect(log.filter { $0.entry.cause == .door }.count == 6)
        #expect(Set(log.map(\.sequence)).count == log.count)
        #expect(try await Self.keeping(under).replicaVersion() == log.map(\.sequence).max())
    }

    /// A database from before version 24 whose doors hold a version: after the upgrade the
    /// version is higher (doors never take a lower one back) and is the upgrade's entry.
    @Test(arguments: StoreUnderTest.Kind.allCases)
    func anUpgradedDatabaseStartsAboveTheVersionItsDoorsHold(_ kind: StoreUnderTest.Kind) async throws {
        let old = try await StoreUnderTest.make(kind, schemaVersion: 23)
        for n in 0..<40 { try await old.administration.add(name: "u\(n)", hash: try Self.hash("4826"), tag: nil) }
        let held = try await Self.keeping(old).replicaVersion()
        #expect(held > 40, "each add raised the counted version (\(held))")
        await old.close()
        let under = try await old.reopened()
        defer { Task { await under.destroy() } }
        let keeping = try Self.keeping(under)
        let log = try await Self.log(under)
        #expect(log.map(\.entry.cause) == [.schemaUpgrade])
        let upgraded = try await keeping.replicaVersion()
        #expect(upgraded > held && upgraded == log.last?.sequence, "held \(held), now \(upgraded)")
        try await under.administration.add(name: "after", hash: try Self.hash("4826"), tag: nil)
        #expect(try await keeping.replicaVersion() == upgraded + 1)
    }
}
