// What the access rules cost per attempt, beside the PIN hash (a PBKDF2 of ~10 ms here):
// 10,000 users with rules over 100 schedules. Run: cd Benchmarks && swift package benchmark --target AccessRules
import Benchmark
import Foundation
import KioskPadAccess
import SiteCore
import SmokeRun

/// A site of `users` users, each with doors, one of `schedules` schedules and a validity
/// window; and the instants the attempts are made at (one per minute over two weeks).
enum AccessFixture {
    static let users = 10_000
    static let schedules = 100

    static let site: SiteRules = {
        var specs: [String: String] = [:]
        for index in 0..<schedules {
            let start = index % 20
            specs["s\(index)"] = String(format: "mon-fri %02d:00-%02d:30; sat,sun %02d:15-%02d:00", start, start + 3, (start + 5) % 24, (start + 9) % 24)
        }
        var rules: [String: AccessRule] = [:]
        for index in 0..<users {
            rules["u\(index)"] = AccessRule(
                doors: ["door-\(index % 7)", "door-\(index % 11)", "front-door"], schedule: "s\(index % schedules)",
                validFrom: SiteDate(parsing: "2026-01-01"), validUntil: SiteDate(parsing: "2027-12-31T18:00"))
        }
        return SiteRules(timeZone: "Europe/Berlin", schedules: specs, rules: rules)
    }()

    static let instants: [Date] = (0..<(14 * 1440)).map { Date(timeIntervalSince1970: 1_795_000_000 + Double($0) * 60) }

    /// The site with a holiday every 7th day of the fortnight's year (one of them part of a
    /// day with its own schedule), and a responder in every 50 users: a decision reads the
    /// calendar on every attempt of a scheduled user.
    static let siteWithHolidays: SiteRules = {
        var site = AccessFixture.site
        site.schedules["holiday-hours"] = "daily 10:00-14:00"
        site.holidays = (0..<52).map { week in
            let day = Date(timeIntervalSince1970: 1_790_000_000 + Double(week) * 7 * 86_400)
            let text = utcDate(day)
            return try! Holiday(day: text, words: week % 2 == 0 ? ["12:00-24:00", "schedule=holiday-hours"] : [])
        }
        for index in stride(from: 0, to: users, by: 50) { site.rules["u\(index)"]?.responder = true }
        return site
    }()

    /// `instant`'s date in UTC, `YYYY-MM-DD`.
    static func utcDate(_ instant: Date) -> String {
        let days = Int((instant.timeIntervalSince1970 / 86_400).rounded(.down))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: Double(days) * 86_400))
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }

    /// The holidays a server reads for an attempt at `instant` (the UTC dates either side), as rows.
    static func holidayRows(near instant: Date) -> [UserAccess.HolidayRow] {
        rowsByDay[Int((instant.timeIntervalSince1970 / 86_400).rounded(.down))] ?? []
    }

    /// The rows for each UTC day of the instants, made once.
    static let rowsByDay: [Int: [UserAccess.HolidayRow]] = {
        let first = Int((instants[0].timeIntervalSince1970 / 86_400).rounded(.down))
        let last = Int((instants[instants.count - 1].timeIntervalSince1970 / 86_400).rounded(.down))
        var rows: [Int: [UserAccess.HolidayRow]] = [:]
        for day in first...last {
            let instant = Date(timeIntervalSince1970: Double(day) * 86_400 + 43_200)
            let days = Set((-1...1).map { utcDate(instant.addingTimeInterval(Double($0) * 86_400)) })
            rows[day] = siteWithHolidays.holidays.filter { days.contains($0.day.description) }.map {
                UserAccess.HolidayRow(day: $0.day.description, rule: $0.rule, scheduleSpec: $0.schedule.flatMap { siteWithHolidays.schedules[$0] })
            }
        }
        return rows
    }()
}

let benchmarks: @Sendable () -> Void = {
    Benchmark(
        "Rules, terminal: one decision (10,000 users, 100 schedules, compiled once)",
        configuration: .init(metrics: [.cpuTotal, .wallClock, .mallocCountTotal, .throughput], scalingFactor: .kilo)
    ) { benchmark in
        let compiled = try CompiledSiteRules(AccessFixture.site)
        let instants = AccessFixture.instants
        benchmark.startMeasurement()
        for index in benchmark.scaledIterations {
            blackHole(compiled.refusal(user: "u\(index % AccessFixture.users)", door: "front-door", at: instants[index % instants.count]))
        }
    }

    Benchmark(
        "Rules, server: one decision from the stored row (rule text, schedule spec and zone as read; each compiled once)",
        configuration: .init(metrics: [.cpuTotal, .wallClock, .mallocCountTotal, .throughput], scalingFactor: .kilo)
    ) { benchmark in
        let site = AccessFixture.site
        let rows = (0..<AccessFixture.users).map { index -> UserAccess in
            let rule = site.rules["u\(index)"]!
            return UserAccess(ruleText: rule.fields.joined(separator: " "), scheduleSpec: site.schedules[rule.schedule!], timeZone: "Europe/Berlin")
        }
        let cache = AccessCompilationCache()
        let instants = AccessFixture.instants
        // Every rule seen once, as a running server has (the first sight is the next benchmark).
        for row in rows { blackHole(cache.refusal(row, door: "front-door", at: instants[0])) }
        benchmark.startMeasurement()
        for index in benchmark.scaledIterations {
            blackHole(cache.refusal(rows[index % rows.count], door: "front-door", at: instants[index % instants.count]))
        }
    }

    Benchmark(
        "Rules, terminal: one decision through levels (10,000 users in 2 of 50 groups, 100 levels, 200 doors)",
        configuration: .init(metrics: [.cpuTotal, .wallClock, .mallocCountTotal, .throughput], scalingFactor: .kilo)
    ) { benchmark in
        let compiled = try CompiledSiteRules(AccessLevelsFixture.site)
        let instants = AccessFixture.instants
        benchmark.startMeasurement()
        for index in benchmark.scaledIterations {
            blackHole(compiled.refusal(user: "u\(index % AccessFixture.users)", door: "front-door", at: instants[index % instants.count]))
        }
    }

    Benchmark(
        "Rules, server: one decision through levels from the stored row (the tree and schedules as read)",
        configuration: .init(metrics: [.cpuTotal, .wallClock, .mallocCountTotal, .throughput], scalingFactor: .kilo)
    ) { benchmark in
        let rows = AccessLevelsFixture.rows
        let cache = AccessCompilationCache()
        let instants = AccessFixture.instants
        for row in rows { blackHole(cache.refusal(row, door: "front-door", at: instants[0])) }
        benchmark.startMeasurement()
        for index in benchmark.scaledIterations {
            blackHole(cache.refusal(rows[index % rows.count], door: "front-door", at: instants[index % instants.count]))
        }
    }

    Benchmark(
        "Rules, terminal: one decision with 52 holidays and responders (10,000 users, 100 schedules)",
        configuration: .init(metrics: [.cpuTotal, .wallClock, .mallocCountTotal, .throughput], scalingFactor: .kilo)
    ) { benchmark in
        let compiled = try CompiledSiteRules(AccessFixture.siteWithHolidays)
        let instants = AccessFixture.instants
        benchmark.startMeasurement()
        for index in benchmark.scaledIterations {
            blackHole(compiled.refusal(user: "u\(index % AccessFixture.users)", door: "front-door", at: instants[index % instants.count]))
        }
    }

    Benchmark(
        "Rules, server: one decision from the stored row with the day's holidays (rule, schedule, zone, holiday rows as read)",
        configuration: .init(metrics: [.cpuTotal, .wallClock, .mallocCountTotal, .throughput], scalingFactor: .kilo)
    ) { benchmark in
        let site = AccessFixture.siteWithHolidays
        let instants = AccessFixture.instants
        // What the store reads per attempt: the user's row, and the holidays near the instant
        // (read for a user with a schedule: every user here).
        let rows = (0..<AccessFixture.users).map { index -> UserAccess in
            let rule = site.rules["u\(index)"]!
            let instant = instants[index % instants.count]
            return UserAccess(
                ruleText: rule.fields.joined(separator: " "), scheduleSpec: site.schedules[rule.schedule!], timeZone: "Europe/Berlin",
                holidays: AccessFixture.holidayRows(near: instant))
        }
        let cache = AccessCompilationCache()
        for (index, row) in rows.enumerated() { blackHole(cache.refusal(row, door: "front-door", at: instants[index % instants.count])) }
        benchmark.startMeasurement()
        for index in benchmark.scaledIterations {
            let row = index % rows.count
            blackHole(cache.refusal(rows[row], door: "front-door", at: instants[row % instants.count]))
        }
    }

    Benchmark(
        "Rules, terminal: one decision at a card-and-PIN door by schedule, with 52 holidays (the door's rule, then the user's)",
        configuration: .init(metrics: [.cpuTotal, .wallClock, .mallocCountTotal, .throughput], scalingFactor: .kilo)
    ) { benchmark in
        var site = AccessFixture.siteWithHolidays
        site.cardAndPIN["front-door"] = CardAndPINRule(schedule: "s7")
        let compiled = try CompiledSiteRules(site)
        let instants = AccessFixture.instants
        benchmark.startMeasurement()
        for index in benchmark.scaledIterations {
            let instant = instants[index % instants.count]
            blackHole(compiled.secondFactorRequired(door: "front-door", at: instant))
            blackHole(compiled.refusal(user: "u\(index % AccessFixture.users)", door: "front-door", at: instant))
        }
    }

    Benchmark(
        "Rules, server: one decision at a card-and-PIN door by schedule, with the day's holidays (the door's row, then the user's)",
        configuration: .init(metrics: [.cpuTotal, .wallClock, .mallocCountTotal, .throughput], scalingFactor: .kilo)
    ) { benchmark in
        let site = AccessFixture.siteWithHolidays
        let instants = AccessFixture.instants
        // What the store reads per attempt: the door's card-and-PIN row with the holidays
        // near the instant, and the user's row with the same holidays.
        let rows = (0..<AccessFixture.users).map { index -> (door: CardAndPINAccess, user: UserAccess) in
            let rule = site.rules["u\(index)"]!
            let holidays = AccessFixture.holidayRows(near: instants[index % instants.count])
            return (
                CardAndPINAccess(ruleText: "schedule=s7", scheduleSpec: site.schedules["s7"], timeZone: "Europe/Berlin", holidays: holidays),
                UserAccess(
                    ruleText: rule.fields.joined(separator: " "), scheduleSpec: site.schedules[rule.schedule!], timeZone: "Europe/Berlin",
                    holidays: holidays)
            )
        }
        let cache = AccessCompilationCache()
        for (index, row) in rows.enumerated() { blackHole(cache.refusal(row.user, door: "front-door", at: instants[index % instants.count])) }
        benchmark.startMeasurement()
        for index in benchmark.scaledIterations {
            let row = index % rows.count
            let instant = instants[row % instants.count]
            blackHole(cache.secondFactorRequired(rows[row].door, at: instant))
            blackHole(cache.refusal(rows[row].user, door: "front-door", at: instant))
        }
    }

    Benchmark(
        "Rules, server: parsing one stored rule (what a rule costs the first time it is seen)",
        configuration: .init(metrics: [.cpuTotal, .wallClock, .mallocCountTotal, .throughput], scalingFactor: .kilo)
    ) { benchmark in
        let texts = (0..<AccessFixture.users).map { AccessFixture.site.rules["u\($0)"]!.fields.joined(separator: " ") }
        benchmark.startMeasurement()
        for index in benchmark.scaledIterations {
            blackHole(try AccessRule(fields: texts[index % texts.count].split(separator: " ")))
        }
    }
    SmokeRun.clampIfAsked()
}
