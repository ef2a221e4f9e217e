import Benchmark
import Foundation
import KioskPadAccess
import SiteCore

/// A site where one user in ten may open `lab`: by users' own rules, or by ten user groups
/// (one level each) of which one opens `lab` in a schedule and again, overlapping, always on
/// weekends: what a door's replica costs to make and weighs either way.
enum LevelsReplicaFixture {
    static let byOwnRules: SiteRules = {
        var rules: [String: AccessRule] = [:]
        for index in 0..<ReplicaFixture.users {
            rules[String(format: "user-%05d", index)] = AccessRule(doors: [index % 10 == 0 ? "lab" : "door-\(index % 10)"], schedule: "office")
        }
        return SiteRules(timeZone: "Europe/Berlin", schedules: ["office": "mon-fri 07:00-19:00", "weekend": "sat,sun"], rules: rules)
    }()

    static let byGroups: SiteRules = {
        var site = byOwnRules
        site.rules = [:]
        var tree = AccessLevels()
        for index in 0..<10 {
            tree.levels["l\(index)"] = AccessLevel(doors: [index == 0 ? "lab" : "door-\(index)"], schedule: "office")
            tree.userGroups["g\(index)"] = UserGroup(levels: ["l\(index)"] + (index == 0 ? ["lab-weekend"] : []))
        }
        tree.levels["lab-weekend"] = AccessLevel(doors: ["lab"], schedule: "weekend")
        site.access = tree
        for index in 0..<ReplicaFixture.users { site.rules[String(format: "user-%05d", index)] = AccessRule(groups: ["g\(index % 10)"]) }
        return site
    }()
}

/// The replica of `lab` made, encoded and signed, each way; its size printed once.
func levelsReplicaBenchmarks() {
    for (name, site) in [("users' own rules", LevelsReplicaFixture.byOwnRules), ("groups and levels", LevelsReplicaFixture.byGroups)] {
        Benchmark(
            "Replica, verifier: a door 10% of 10,000 users may open, by \(name): choose, encode and sign",
            configuration: .init(metrics: [.cpuTotal, .wallClock, .mallocCountTotal], maxDuration: .seconds(10), maxIterations: 100)
        ) { benchmark in
            let records = ReplicaFixture.records
            let replica = try CredentialService.replica(for: "lab", version: 7, site: site, records: records, now: Date())
            let json = try SignedReplica(signing: .replica(replica), with: ReplicaFixture.key).json
            print("replica of lab by \(name): \(json.count) bytes for \(replica.entries.count) entries, requires \(replica.requires.map(\.rawValue))")
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                let made = try CredentialService.replica(for: "lab", version: 7, site: site, records: records, now: Date())
                blackHole(try SignedReplica(signing: .replica(made), with: ReplicaFixture.key).json)
            }
        }
    }
}
