// What the verifier's side of a door's credential replica costs: choosing a door's users
// out of 10,000 (a third limited to some doors), encoding and signing the replica (Ed25519),
// and a door checking the signature and decoding it. No database: the rows as read.
// Run: cd Benchmarks && swift package benchmark --target CredentialReplicas
import Benchmark
import Crypto
import Foundation
import KioskPadAccess
import KioskPadCore
import SiteCore
import SmokeRun

enum ReplicaFixture {
    static let users = 10_000

    static let records: [UserRecord] = {
        // One real PHC string for all (hashing 10,000 PINs is not what is measured).
        let hash = try! PINHash.make(pin: SecretDigits(ascii: "4821")!, iterations: 75_000)
        return (0..<users).map { UserRecord(name: String(format: "user-%05d", $0), pinHash: hash) }
    }()

    static let site: SiteRules = {
        var rules: [String: AccessRule] = [:]
        for index in stride(from: 0, to: users, by: 3) {
            rules[String(format: "user-%05d", index)] = AccessRule(doors: ["door-\(index % 50)", "front-door"], schedule: "office")
        }
        return SiteRules(timeZone: "Europe/Berlin", schedules: ["office": "mon-fri 07:00-19:00"], rules: rules)
    }()

    static let key = Curve25519.Signing.PrivateKey()
}

let benchmarks: @Sendable () -> Void = {
    doorBenchmarks()
    levelsReplicaBenchmarks()

    Benchmark(
        "Replica, verifier: choose, encode and sign one door's replica (10,000 users)",
        configuration: .init(metrics: [.cpuTotal, .wallClock, .mallocCountTotal], maxDuration: .seconds(10), maxIterations: 100)
    ) { benchmark in
        let records = ReplicaFixture.records
        let site = ReplicaFixture.site
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            let replica = try CredentialService.replica(for: "front-door", version: 7, site: site, records: records, now: Date())
            blackHole(try SignedReplica(signing: .replica(replica), with: ReplicaFixture.key).json)
        }
    }

    Benchmark(
        "Replica, door: check the signature and decode (10,000 users)",
        configuration: .init(metrics: [.cpuTotal, .wallClock, .mallocCountTotal], maxDuration: .seconds(10), maxIterations: 100)
    ) { benchmark in
        let replica = try CredentialService.replica(for: "front-door", version: 7, site: ReplicaFixture.site, records: ReplicaFixture.records, now: Date())
        let json = try SignedReplica(signing: .replica(replica), with: ReplicaFixture.key).json
        let publicKey = ReplicaPublicKey(ReplicaFixture.key.publicKey)
        print("replica document: \(json.count) bytes for \(replica.entries.count) entries")
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try SignedReplica(json: json).open(with: publicKey))
        }
    }

    Benchmark(
        "Replica, verifier: an unchanged door's signed confirmation",
        configuration: .init(metrics: [.cpuTotal, .wallClock, .mallocCountTotal], scalingFactor: .kilo)
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try SignedReplica(signing: .confirmation(terminalID: "front-door", version: 7, issuedAt: Date()), with: ReplicaFixture.key).json)
        }
    }
    SmokeRun.clampIfAsked()
}
