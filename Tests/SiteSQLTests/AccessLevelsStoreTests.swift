import Foundation
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import SiteCore
import SiteSQL
import Testing
import VerifierTestSupport

/// Access levels and groups kept by each real store: the server's decision (the rule read at
/// `/verify` and compiled for the door), the users file's evaluator and a door's replica
/// decide alike on a grid of users, doors and times; and a database of the release before
/// levels decides exactly as before once upgraded.
@Suite("Access levels on SQLite and PostgreSQL", .serialized, .heavy)
struct AccessLevelsStoreTests {
    static let hash = try! PINHash.make(pin: SecretDigits(ascii: "2468")!, iterations: 1000)

    static let text = AccessLevelsSite.usersFile(hash: hash.description, anasHash: hash.description)

    static let doors = ["front", "side", "store", "shop", "back"]

    /// Hours across a week in December 2026 (Monday the 7th), a Saturday, Christmas Eve and Day, and an expiry.
    static let times: [Date] = {
        let base = Date(timeIntervalSince1970: 1_796_083_200)  // 2026-12-01T00:00Z, a Tuesday
        let days = [0, 1, 2, 6, 11, 23, 24]
        let hours = [3, 9, 11, 17, 18, 21, 23]
        return days.flatMap { day in hours.map { base.addingTimeInterval(Double(day * 86_400 + $0 * 3600)) } }
    }()

    /// The server's answer for each of `users` at each door and time: the rule as `/verify`
    /// reads it, compiled and decided by the server's cache; `granted` or the reason.
    static func serverDecisions(_ store: StoreUnderTest, users: [String]) async throws -> [String: String] {
        let cache = AccessCompilationCache()
        var answers: [String: String] = [:]
        // One transaction per user, as /verify reads one user's rule per attempt.
        for user in users {
            let mine = try await store.store.commitAttempt(terminal: "grid", policy: LockoutPolicy()) { _, transaction in
                var answers: [String: String] = [:]
                for door in Self.doors {
                    for time in Self.times {
                        guard let access = try await transaction.access(user: user, door: door, at: time) else { continue }
                        answers["\(user) \(door) \(time)"] = cache.refusal(access, door: door, at: time)?.rawValue ?? "granted"
                    }
                }
                return answers
            }
            answers.merge(mine) { $1 }
        }
        return answers
    }

    /// Whether `user` may open `door` at `time` by a door's replica made at `time`.
    static func replicaAdmits(_ user: String, _ door: String, _ time: Date, site: SiteRules, records: [UserRecord]) throws -> Bool {
        let replica = try CredentialService.replica(for: door, version: 1, site: site, records: records, now: time)
        guard replica.entries.contains(where: { $0.user == user }) else { return false }
        var rules: [String: AccessRule] = [:]
        for (name, text) in replica.rules { rules[name] = try AccessRule(fields: text.split(separator: " ")) }
        #expect(rules.values.allSatisfy { !$0.usesLevels }, "a replica carries compiled rules, never the tree")
        let holidays = try replica.holidays.map { try Holiday(day: $0.key, words: $0.value.split(separator: " ")) }
        let compiled = try CompiledSiteRules(SiteRules(timeZone: replica.timeZone, schedules: replica.schedules, rules: rules, holidays: holidays))
        return compiled.refusal(user: user, door: door, at: time) == nil
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func theServerTheUsersFileAndAReplicaDecideAlikeOnAGrid(_ kind: StoreUnderTest.Kind) async throws {
        let file = try UsersFile(parsing: Self.text, source: "users")
        let store = try await StoreUnderTest.make(kind)
        defer { Task { await store.destroy() } }
        #expect(try await store.administration.importUsers(file) == file.users.count)
        let site = try await store.administration.siteRules()
        #expect(site.access == file.site.access && site.rules == file.site.rules)
        let records = try await store.administration.records()
        let fileRules = try CompiledSiteRules(file.site)
        let server = try await Self.serverDecisions(store, users: file.users.map(\.name))
        var granted = 0
        var compared = 0
        for user in file.users.map(\.name) {
            for door in Self.doors {
                for time in Self.times {
                    let online = server["\(user) \(door) \(time)"]
                    let local = fileRules.refusal(user: user, door: door, at: time)?.rawValue ?? "granted"
                    #expect(online == local, "\(user) at \(door), \(time): server \(online ?? "no user"), users file \(local)")
                    let offline = try Self.replicaAdmits(user, door, time, site: site, records: records)
                    #expect(offline == (online == "granted"), "\(user) at \(door), \(time): server \(online ?? "no user"), replica admits \(offline)")
                    granted += online == "granted" ? 1 : 0
                    compared += 1
                }
            }
        }
        // The grid holds both answers in quantity (a grid that always refuses proves nothing).
        #expect(compared == 9 * 5 * 49 && granted > 100 && granted < compared - 100, "\(granted) of \(compared)")
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aDatabaseFromBeforeLevelsDecidesAsBeforeOnceUpgraded(_ kind: StoreUnderTest.Kind) async throws {
        // Version 12, the release before levels, with every rule kind it had, written as it holds them.
        let users = try UsersFile(parsing: (0..<6).map { "u\($0):\(Self.hash)\n" }.joined(), source: "users")
        let old = try await StoreUnderTest.make(kind, users: users, schemaVersion: 12)
        try await old.administration.setTimeZone("UTC")
        try await old.administration.setSchedule(name: "office", spec: "mon-fri 08:00-18:00")
        for (user, rule) in [
            ("u1", "doors=front"), ("u2", "schedule=office"), ("u3", "doors=front,side schedule=office valid_from=2026-12-03"),
            ("u4", "valid_until=2026-12-01 responder"), ("u5", "disabled staff"),
        ] {
            let schedule = rule.contains("office") ? "'office'" : "NULL"
            let insert = "INSERT INTO kioskpad_access (user_name, rule, schedule) VALUES ('\(user)', '\(rule)', \(schedule))"
            try await old.execute(sqlite: insert, postgres: insert)
        }
        let holiday = "INSERT INTO kioskpad_holidays (day, rule, label) VALUES ('2026-12-25', 'Christmas', 'Christmas')"
        try await old.execute(sqlite: holiday, postgres: holiday)
        let names = users.users.map(\.name)
        func decisions(_ store: StoreUnderTest) async throws -> [String: String] { try await Self.serverDecisions(store, users: names) }
        let before = try await decisions(old)
        await old.close()
        let store = try await old.reopened()
        defer { Task { await store.destroy() } }
        #expect(try await store.count("kioskpad_access") == 5)
        let after = try await decisions(store)
        #expect(after == before)
        #expect(before.count == 6 * 5 * 49)
        #expect(Set(before.values).isSuperset(of: ["granted", "not_permitted_here", "outside_schedule", "not_yet_valid", "expired", "disabled", "holiday"]))
        // And the upgraded database takes levels.
        try await store.administration.setLevel(name: "all-front", AccessLevel(doors: ["front"]))
        try await store.administration.setAccess(user: "u1") { $0.levels = ["all-front"] }
        #expect(try await store.administration.siteRules().rules["u1"]?.levels == ["all-front"])
    }
}
