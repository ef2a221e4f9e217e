import Foundation
import KioskPadAccess
import KioskPadCore
import SiteCore
import Testing
import VerifierTestSupport

/// An administrator's change, its audit record, its webhook message and its change-log entry
/// commit in one transaction on each real store: when any part cannot be written, or the
/// change fails after writing, none of them is kept (issue 79).
@Suite("One transaction per change, on SQLite and PostgreSQL", .heavy)
struct ChangeTransactionTests {
    /// The tables a change writes beside its own.
    static let parts = ["kioskpad_audit", "kioskpad_webhook_deliveries", "kioskpad_change_log"]

    struct Counts: Equatable, CustomStringConvertible {
        let users: Int
        let audit: Int
        let messages: Int
        let log: Int
        var description: String { "users \(users), audit \(audit), messages \(messages), change log \(log)" }
    }

    static func counts(_ under: StoreUnderTest) async throws -> Counts {
        Counts(
            users: try await under.count("kioskpad_users"), audit: try await under.count("kioskpad_audit"),
            messages: try await under.count("kioskpad_webhook_deliveries"), log: try await under.count("kioskpad_change_log"))
    }

    /// The change log's administrators' entries (not the schema upgrade's first one).
    static func administratorsEntries(_ store: any VerifierStore) async throws -> [LoggedChange] {
        try await store.changeLog(after: 0, limit: 10).filter { $0.entry.action != nil }
    }

    static func addUser(_ under: StoreUnderTest, _ name: String, failingAfter: Bool = false) async throws {
        struct FailedAfterWriting: Error {}
        let administration = under.administration
        let hash = try PINHash.make(pin: SecretDigits(ascii: "4826")!, iterations: 1_000)
        try await AdministratorChanges(store: under.store, by: .commandLine(["USER": "test"])).apply(.userAdd, [("user", name)]) {
            try await administration.addUser(name: name, hash: hash, tag: nil, rule: AccessRule())
            if failingAfter { throw FailedAfterWriting() }
        }
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aChangeWhosePartCannotBeWrittenKeepsNothing(_ kind: StoreUnderTest.Kind) async throws {
        let under = try await StoreUnderTest.make(kind)
        defer { Task { await under.destroy() } }
        #expect(try await under.webhooks.addWebhook(WebhookQueueTests.subscription("users", [.userChanged])))
        let before = try await Self.counts(under)
        for part in Self.parts {
            try await under.refuseInserts(into: part)
            await #expect(throws: (any Error).self, "\(part) refused") { try await Self.addUser(under, "zed") }
            try await under.allowInserts(into: part)
            #expect(try await Self.counts(under) == before, "\(part) refused: nothing of the change kept")
        }
        await #expect(throws: (any Error).self) { try await Self.addUser(under, "zed", failingAfter: true) }
        #expect(try await Self.counts(under) == before, "a change that fails after writing keeps nothing")
        try await Self.addUser(under, "zed")
        let after = try await Self.counts(under)
        #expect(after == Counts(users: before.users + 1, audit: before.audit + 1, messages: before.messages + 1, log: before.log + 1), "\(after)")
        let log = try await Self.administratorsEntries(under.store)
        #expect(log.map(\.entry) == [ChangeLogEntry(kind: .user, subject: "zed", action: .userAdd)])
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func theChangeLogIsInTheOrderChangesCommitted(_ kind: StoreUnderTest.Kind) async throws {
        let under = try await StoreUnderTest.make(kind)
        defer { Task { await under.destroy() } }
        for name in ["ana", "ben", "cleo"] { try await Self.addUser(under, name) }
        let log = try await Self.administratorsEntries(under.store)
        #expect(log.map(\.entry.subject) == ["ana", "ben", "cleo"])
        #expect(log.map(\.sequence) == log.map(\.sequence).sorted() && Set(log.map(\.sequence)).count == 3)
        let rest = try await under.store.changeLog(after: log[0].sequence, limit: 10)
        #expect(rest.map(\.entry.subject) == ["ben", "cleo"], "read from a position")
    }

    /// On PostgreSQL a change-log position is taken in commit order: while a change that has
    /// logged its entry is still open, a later change's entry does not show (it waits), so a
    /// reader that has seen position N has missed nothing before it. (SQLite has one writer.)
    @Test func aLaterEntryDoesNotShowWhileAnEarlierChangeIsOpen() async throws {
        let under = try await StoreUnderTest.make(.postgres)
        defer { Task { await under.destroy() } }
        let store = under.store
        let (logged, saidLogged) = AsyncStream.makeStream(of: Void.self)
        let (release, released) = AsyncStream.makeStream(of: Void.self)
        let first = Task {
            try await store.commitChange {
                try await store.logChanges([ChangeLogEntry(kind: .user, subject: "first", action: .userAdd)])
                saidLogged.yield()
                for await _ in release { break }
            }
        }
        for await _ in logged { break }
        let second = Task {
            try await store.commitChange { try await store.logChanges([ChangeLogEntry(kind: .user, subject: "second", action: .userAdd)]) }
        }
        // Room for the second change to commit, were its position not held back.
        try await Task.sleep(for: .milliseconds(500))
        let whileOpen = try await Self.administratorsEntries(store)
        released.yield()
        try await first.value
        try await second.value
        #expect(whileOpen.isEmpty, "seen before the earlier change committed: \(whileOpen.map(\.entry.subject))")
        let log = try await Self.administratorsEntries(store)
        #expect(log.map(\.entry.subject) == ["first", "second"] && log[0].sequence < log[1].sequence)
    }

    /// A write inside a change that throws, and is caught, undoes only its own statements.
    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aNestedWriteThatFailsUndoesOnlyItself(_ kind: StoreUnderTest.Kind) async throws {
        let under = try await StoreUnderTest.make(kind)
        defer { Task { await under.destroy() } }
        let administration = under.administration
        let hash = try PINHash.make(pin: SecretDigits(ascii: "4826")!, iterations: 1_000)
        try await AdministratorChanges(store: under.store, by: .commandLine(["USER": "test"])).apply(.userAdd, [("user", "ana")]) {
            try await administration.addUser(name: "ana", hash: hash, tag: nil, rule: AccessRule())
            // A second add of the same name is refused inside its own savepoint.
            await #expect(throws: UserEditError.self) { try await administration.addUser(name: "ana", hash: hash, tag: nil, rule: AccessRule()) }
            try await administration.addUser(name: "ben", hash: hash, tag: nil, rule: AccessRule())
        }
        let names = try await administration.records().map(\.name)
        #expect(names == ["ana", "ben"])
    }
}
