// What a door's side of its replica costs: a sync of 10,000 users (check the signature,
// decode, build the lookup, write the files), an unchanged sync (a confirmation), and an
// offline decision next to the one PBKDF2 check it is built around.
import Benchmark
import Crypto
import DoorOfflineReplica
import Foundation
import KioskPadAccess
import KioskPadCore
import SiteCore
import Synchronization

enum DoorReplicaFixture {
    static let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kp-bench-replica-\(UUID())")
    static let tagKey = ReplicaTagKey(raw: Array(repeating: 5, count: 32))

    /// 10,000 users with PINs 0000-9999, every one tagged (one shared PHC string: hashing
    /// 10,000 PINs is not what is measured).
    static let signed: SignedReplica = {
        let hash = try! PINHash.make(pin: SecretDigits(ascii: "4821")!, iterations: 75_000)
        let records = (0..<10_000).map { UserRecord(name: String(format: "user-%05d", $0), pinHash: hash) }
        var tags: [String: String] = [:]
        // Tags are looked up by hash string; give each record its own by a distinct salt.
        let distinct = records.enumerated().map { index, record -> UserRecord in
            var salt = hash.salt
            salt[0] = UInt8(index & 0xff)
            salt[1] = UInt8(index >> 8)
            let own = PINHash(iterations: hash.iterations, salt: salt, hash: hash.hash)
            tags[own.description] = tagKey.tag(SecretDigits(ascii: String(format: "%04d", index))!, kind: .pin)
            return UserRecord(name: record.name, pinHash: index == 4821 ? hash : own)
        }
        tags[hash.description] = tagKey.tag(SecretDigits(ascii: "4821")!, kind: .pin)
        let replica = try! CredentialService.replica(
            for: "front-door", version: 7, site: SiteRules(), records: distinct, now: Date(), tags: tags, tagKey: tagKey)
        return try! SignedReplica(signing: .replica(replica), with: ReplicaFixture.key)
    }()

    /// The door's verifier over the replica, and 200 users' PINs to type (built once).
    static let decision: (LocalVerifier, [VerificationAttempt]) = {
        try! FileManager.default.createDirectory(at: directory.appendingPathComponent("decide"), withIntermediateDirectories: true)
        let keeper = DoorReplicaFixture.keeper("decide")
        try! keeper.accept(signed, receivedAt: BootInstant.now())
        let (verifier, _) = try! keeper.offlineVerifier().get()
        guard case .replica(let content) = try! signed.open(with: ReplicaPublicKey(ReplicaFixture.key.publicKey)) else { preconditionFailure("a replica") }
        var buckets: [String: Int] = [:]
        for entry in content.entries { buckets[entry.tag ?? "", default: 0] += 1 }
        var attempts: [VerificationAttempt] = []
        var shared = 0
        for user in stride(from: 7, to: 10_000, by: 50) {
            let pin: SecretDigits = SecretDigits(ascii: String(format: "%04d", user))!
            attempts.append(VerificationAttempt(terminalID: "front-door", kind: .pin, value: pin))
            let bucket: String = ReplicaTagKey.cut(tagKey.tag(pin, kind: .pin), bits: content.tagBits)
            let count: Int = buckets[bucket] ?? 0
            if count > 1 { shared += 1 }
        }
        print("of the 200 PINs typed, \(shared) share their bucket with another user (\(content.tagBits) bits)")
        return (verifier, attempts)
    }()

    static let next = Atomic<Int>(0)

    static func keeper(_ name: String) -> ReplicaKeeper {
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return ReplicaKeeper(
            settings: ReplicaKeeper.Settings(
                terminalID: "front-door", trust: ReplicaTrust(current: ReplicaPublicKey(ReplicaFixture.key.publicKey)),
                path: directory.appendingPathComponent(name).path + "/replica.json", maxAge: .seconds(86_400), wallClockTrusted: { true }))
    }
}

let doorBenchmarks: @Sendable () -> Void = {
    Benchmark(
        "Replica, door: sync 10,000 users (check, decode, index, write)",
        configuration: .init(metrics: [.cpuTotal, .wallClock, .mallocCountTotal], maxDuration: .seconds(20), maxIterations: 50)
    ) { benchmark in
        let json = DoorReplicaFixture.signed
        let folder = DoorReplicaFixture.directory.appendingPathComponent("full")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent("replica.json"))
            blackHole(try DoorReplicaFixture.keeper("full").accept(json, receivedAt: BootInstant.now()))
        }
        benchmark.stopMeasurement()
        let size = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("replica.json").path)[.size] as? Int ?? 0
        print("replica.json: \(size) bytes for 10,000 users")
    }

    Benchmark(
        "Replica, door: an unchanged sync (check and keep a confirmation)",
        // An hour apart, so that each one rewrites the small file, as one an hour does
        // (ReplicaKeeper.confirmationWriteInterval); the syncs in between only check.
        configuration: .init(metrics: [.cpuTotal, .wallClock, .mallocCountTotal], maxDuration: .seconds(10), maxIterations: 1_000)
    ) { benchmark in
        let folder = DoorReplicaFixture.directory.appendingPathComponent("same")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let keeper = DoorReplicaFixture.keeper("same")
        try keeper.accept(DoorReplicaFixture.signed, receivedAt: BootInstant.now())
        let start = Date().addingTimeInterval(60)
        let confirmations = try (0..<1_000).map {
            try SignedReplica(
                signing: .confirmation(terminalID: "front-door", version: 7, issuedAt: start.addingTimeInterval(Double($0) * 3600)), with: ReplicaFixture.key)
        }
        var next = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try keeper.accept(confirmations[next % confirmations.count], receivedAt: BootInstant.now()))
            next += 1
        }
    }

    Benchmark(
        "Replica, door: the PBKDF2 check alone (75,000 iterations)",
        configuration: .init(metrics: [.cpuTotal, .wallClock], maxDuration: .seconds(10), maxIterations: 200)
    ) { benchmark in
        let hash = try PINHash.make(pin: SecretDigits(ascii: "4821")!, iterations: 75_000)
        let pin = SecretDigits(ascii: "4821")!
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(hash.matches(pin)) }
    }

    Benchmark(
        "Replica, door: an offline decision among 10,000 tagged users (75,000 iterations)",
        configuration: .init(metrics: [.cpuTotal, .wallClock], maxDuration: .seconds(10), maxIterations: 400)
    ) { benchmark in
        // Each run types the next of 200 users' PINs (every 50th user), so the samples cover
        // buckets of one entry and the few shared with another user's cut tag.
        let (verifier, attempts) = DoorReplicaFixture.decision
        let attempt = attempts[DoorReplicaFixture.next.add(1, ordering: .relaxed).oldValue % attempts.count]
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(await verifier.verify(attempt)) }
    }
}
