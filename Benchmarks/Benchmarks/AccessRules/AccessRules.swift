// What the access rules cost per attempt, beside the PIN hash (a PBKDF2 of ~10 ms here):
// 10,000 users with rules over 100 schedules. Run: cd Benchmarks && swift package benchmark --target AccessRules
import Benchmark
import Foundation
import KioskPadAccess
import SiteCore

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
        "Rules, server: parsing one stored rule (what a rule costs the first time it is seen)",
        configuration: .init(metrics: [.cpuTotal, .wallClock, .mallocCountTotal, .throughput], scalingFactor: .kilo)
    ) { benchmark in
        let texts = (0..<AccessFixture.users).map { AccessFixture.site.rules["u\($0)"]!.fields.joined(separator: " ") }
        benchmark.startMeasurement()
        for index in benchmark.scaledIterations {
            blackHole(try AccessRule(fields: texts[index % texts.count].split(separator: " ")))
        }
    }
}
