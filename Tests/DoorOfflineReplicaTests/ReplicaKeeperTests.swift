import Crypto
import DoorOfflineReplica
import Foundation
import KioskPadAccess
import KioskPadCore
import Synchronization
import Testing

/// The door's side of a credential replica with clocks under the test's control: what it
/// takes (signature, terminal, version, replays), what it keeps on disk, and when it lets
/// the door decide (trusted time from the boot clock, `max_age_h`).
@Suite("Replica keeper")
struct ReplicaKeeperTests {
    /// A boot clock the test moves.
    final class FakeBoot: Sendable {
        let now = Mutex(BootInstant(bootID: "boot-a", nanoseconds: 5_000_000_000))
        func advance(seconds: Int64) { now.withLock { $0 = BootInstant(bootID: $0.bootID, nanoseconds: $0.nanoseconds + seconds * 1_000_000_000) } }
        func reboot() { now.withLock { $0 = BootInstant(bootID: "boot-b", nanoseconds: 1_000_000_000) } }
        var instant: BootInstant { now.withLock { $0 } }
    }

    let key = Curve25519.Signing.PrivateKey()
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kp-replica-\(UUID())")
    let issued = Date(timeIntervalSince1970: 1_790_000_000)
    let boot = FakeBoot()

    func keeper(maxAgeHours: Int = 24, wallTrusted: Bool = false, signer: Curve25519.Signing.PrivateKey? = nil) -> ReplicaKeeper {
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let boot = self.boot
        return ReplicaKeeper(
            settings: ReplicaKeeper.Settings(
                terminalID: "front-door", trust: ReplicaTrust(current: ReplicaPublicKey((signer ?? key).publicKey)),
                path: directory.appendingPathComponent("replica.json").path,
                maxAge: .seconds(maxAgeHours * 3600), wallClockTrusted: { wallTrusted }, wallClock: { Date(timeIntervalSince1970: 1_790_000_000 + 600) },
                bootClock: { boot.instant }))
    }

    func replica(version: Int64, terminal: String = "front-door", users: [String: String] = ["bob": "1470"], rules: [String: String] = [:]) throws
        -> SignedReplica
    {
        let entries = try users.sorted(by: { $0.key < $1.key }).map { user, pin in
            CredentialReplica.Entry(user: user, kind: "pin", hash: try PINHash.make(pin: SecretDigits(ascii: pin)!, iterations: 1000))
        }
        return try SignedReplica(
            signing: .replica(
                CredentialReplica(
                    terminalID: terminal, version: version, issuedAt: issued, timeZone: "UTC", schedules: ["night": "daily 01:00-02:00"], rules: rules,
                    entries: entries)), with: key)
    }

    func confirmation(version: Int64, after seconds: Double) throws -> SignedReplica {
        try SignedReplica(signing: .confirmation(terminalID: "front-door", version: version, issuedAt: issued.addingTimeInterval(seconds)), with: key)
    }

    func decide(_ keeper: ReplicaKeeper, _ pin: String) async throws -> AttemptOutcome {
        let (verifier, _) = try keeper.offlineVerifier().get()
        return await verifier.verify(VerificationAttempt(terminalID: "front-door", kind: .pin, value: SecretDigits(ascii: pin)!))
    }

    @Test func aReplicaIsKeptOnDiskAndDecidesAfterARestart() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = keeper()
        #expect(first.problem()?.contains("no replica yet") == true)
        let summary = try first.accept(try replica(version: 4, users: ["bob": "1470", "dana": "3691"]), receivedAt: boot.instant)
        #expect(summary.version == 4 && summary.users == 2 && summary.changed)
        let path = directory.appendingPathComponent("replica.json").path
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600)
        #expect(try !String(contentsOfFile: path, encoding: .utf8).contains("1470"))
        let again = keeper()
        #expect(again.version == 4)
        #expect(try await decide(again, "1470") == .granted(user: "bob"))
        #expect(try await decide(again, "9999") == .denied())
    }

    @Test func olderVersionsForeignKeysAndOtherDoorsAreRefused() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let keeper = keeper()
        try keeper.accept(try replica(version: 5), receivedAt: boot.instant)
        #expect(throws: ReplicaError.self) { try keeper.accept(try replica(version: 4), receivedAt: boot.instant) }
        #expect(throws: ReplicaError.self) { try keeper.accept(try replica(version: 6, terminal: "back-door"), receivedAt: boot.instant) }
        let foreign = try SignedReplica(
            signing: .confirmation(terminalID: "front-door", version: 5, issuedAt: issued.addingTimeInterval(60)), with: Curve25519.Signing.PrivateKey())
        #expect(throws: ReplicaError.self) { try keeper.accept(foreign, receivedAt: boot.instant) }
        #expect(throws: ReplicaError.self) { try keeper.accept(try confirmation(version: 4, after: 60), receivedAt: boot.instant) }
        #expect(try keeper.accept(try confirmation(version: 5, after: 60), receivedAt: boot.instant).changed == false)
        // The same confirmation again is a replay: it would renew the replica's age.
        #expect(throws: ReplicaError.self) { try keeper.accept(try confirmation(version: 5, after: 60), receivedAt: boot.instant) }
        #expect(keeper.version == 5)
    }

    @Test func anOlderReplicaFilePutBackIsRefusedAtStart() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = keeper()
        try first.accept(try replica(version: 4), receivedAt: boot.instant)
        let path = directory.appendingPathComponent("replica.json").path
        let confirmationPath = directory.appendingPathComponent("replica-confirmation.json").path
        let old = (try Data(contentsOf: URL(fileURLWithPath: path)), try Data(contentsOf: URL(fileURLWithPath: confirmationPath)))
        try first.accept(try replica(version: 7, users: ["dana": "3691"]), receivedAt: boot.instant)
        #expect(try String(contentsOfFile: directory.appendingPathComponent("replica-highest").path, encoding: .utf8) == "7\n")
        // Someone puts the older signed pair back (a restored backup, or to revive a PIN).
        try old.0.write(to: URL(fileURLWithPath: path))
        try old.1.write(to: URL(fileURLWithPath: confirmationPath))
        let restarted = keeper()
        #expect(restarted.version == 0)
        #expect(restarted.problem()?.contains("version 4 is older than version 7 this door accepted before") == true, "\(restarted.problem() ?? "")")
        #expect(throws: ReplicaError.self) { try restarted.accept(try replica(version: 5), receivedAt: boot.instant) }
        #expect(try restarted.accept(try replica(version: 8), receivedAt: boot.instant).version == 8)
    }

    @Test func withoutATrustedWallClockTheAgeCountsOnTheBootClockOfTheSameBoot() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let keeper = keeper(maxAgeHours: 1)
        try keeper.accept(try replica(version: 2), receivedAt: boot.instant)
        try keeper.accept(try confirmation(version: 2, after: 300), receivedAt: boot.instant)
        boot.advance(seconds: 1800)
        #expect(keeper.trustedNow() == issued.addingTimeInterval(2100))
        #expect(keeper.problem() == nil)
        boot.advance(seconds: 1801)
        #expect(keeper.problem()?.contains("longer than max_age_h (1 h)") == true, "\(keeper.problem() ?? "")")
        boot.reboot()
        #expect(keeper.trustedNow() == nil)
        #expect(keeper.problem()?.contains("no trusted time") == true)
    }

    /// The confirmation file is not fsynced: one that a power cut left empty must only make
    /// the replica look older (its own issued_at), never refuse it or make it look newer.
    @Test func anEmptiedConfirmationFileLeavesTheReplicaWithItsOwnOlderAge() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = keeper(wallTrusted: true)
        try first.accept(try replica(version: 2), receivedAt: boot.instant)
        try first.accept(try confirmation(version: 2, after: 300), receivedAt: boot.instant)
        #expect(first.age() == .seconds(300))
        try Data().write(to: directory.appendingPathComponent("replica-confirmation.json"))
        let restarted = keeper(wallTrusted: true)
        #expect(restarted.version == 2)
        #expect(restarted.problem() == nil)
        #expect(restarted.age() == .seconds(600))
    }

    @Test func aTrustedWallClockIsUsedAsItIs() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let keeper = keeper(wallTrusted: true)
        try keeper.accept(try replica(version: 2), receivedAt: nil)
        #expect(keeper.trustedNow() == issued.addingTimeInterval(600))
        #expect(keeper.age() == .seconds(600))
    }

    @Test func rulesApplyOfflineWithTheTrustedTime() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let keeper = keeper()
        // 1_790_000_000 is 2026-09-21 13:33 UTC: outside the 01:00-02:00 schedule.
        try keeper.accept(try replica(version: 3, users: ["bob": "1470", "dana": "3691"], rules: ["bob": "schedule=night"]), receivedAt: boot.instant)
        #expect(try await decide(keeper, "1470") == .denied(reason: .outsideSchedule))
        #expect(try await decide(keeper, "3691") == .granted(user: "dana"))
    }

    @Test func aFileSignedByAnotherKeyIsRefusedAndSaysWhy() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try keeper().accept(try replica(version: 2), receivedAt: boot.instant)
        let other = keeper(signer: Curve25519.Signing.PrivateKey())
        #expect(other.held == nil)
        #expect(other.problem()?.contains("signature does not match") == true, "\(other.problem() ?? "")")
    }

    /// The costliest hash a replica may hold (about 4 s to check here): if the door checked
    /// the 30 of them (about 2 min), the test would hit its time limit instead of finishing.
    static let unaffordable = PINHash(iterations: 10_000_000, salt: [UInt8](repeating: 7, count: 16), hash: [UInt8](repeating: 9, count: 32))

    @Test(.timeLimit(.minutes(1)))
    func withTagsAnOfflineAttemptChecksOnlyTheHashesInItsTagsBucket() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let tags = ReplicaTagKey(raw: Array(repeating: 42, count: 32))
        let bob = SecretDigits(ascii: "1470")!
        var entries = [CredentialReplica.Entry(user: "bob", kind: "pin", hash: try PINHash.make(pin: bob, iterations: 1000), tag: tags.tag(bob, kind: .pin))]
        // 30 other users whose tags (16 bits) are not bob's: each is an unaffordable hash.
        var pin = 2000
        while entries.count < 31 {
            let other = SecretDigits(ascii: String(pin))!
            pin += 1
            let tag = tags.tag(other, kind: .pin)
            guard ReplicaTagKey.cut(tag, bits: 16) != ReplicaTagKey.cut(tags.tag(bob, kind: .pin), bits: 16),
                ReplicaTagKey.cut(tag, bits: 16) != ReplicaTagKey.cut(tags.tag(SecretDigits(ascii: "9999")!, kind: .pin), bits: 16)
            else { continue }
            entries.append(CredentialReplica.Entry(user: "user-\(pin)", kind: "pin", hash: Self.unaffordable, tag: tag))
        }
        let cut = entries.map { CredentialReplica.Entry(user: $0.user, kind: $0.kind, hash: $0.hash, tag: $0.tag.map { ReplicaTagKey.cut($0, bits: 16) }) }
        let keeper = keeper()
        try keeper.accept(
            try SignedReplica(
                signing: .replica(
                    CredentialReplica(
                        terminalID: "front-door", version: 2, issuedAt: issued, timeZone: "UTC", schedules: [:], rules: [:], entries: cut,
                        tagKey: tags.raw, tagBits: 16)), with: key),
            receivedAt: boot.instant)
        #expect(try await decide(keeper, "1470") == .granted(user: "bob"))
        #expect(try await decide(keeper, "9999") == .denied())
    }
}

/// An idle door syncs once a minute; its card should not be written each time (issue 47).
@Suite("Replica keeper: confirmations on disk")
struct ReplicaConfirmationWriteTests {
    let base = ReplicaKeeperTests()

    @Test func unchangedSyncsRewriteTheConfirmationOnlyOnceItsIntervalHasPassed() throws {
        defer { try? FileManager.default.removeItem(at: base.directory) }
        #expect(ReplicaKeeper.confirmationWriteInterval(maxAge: .seconds(24 * 3600)) == .seconds(3600))
        #expect(ReplicaKeeper.confirmationWriteInterval(maxAge: .seconds(3600)) == .seconds(900))
        let keeper = base.keeper()
        try keeper.accept(try base.replica(version: 3), receivedAt: base.boot.instant)
        let path = URL(fileURLWithPath: base.directory.appendingPathComponent("replica-confirmation.json").path)
        let afterReplica = try Data(contentsOf: path)
        // 59 unchanged syncs a minute apart: the door's own clock moves on, the file does not.
        for minute in 1...59 {
            try keeper.accept(try base.confirmation(version: 3, after: Double(minute * 60)), receivedAt: base.boot.instant)
        }
        #expect(keeper.held?.confirmedAt == base.issued.addingTimeInterval(59 * 60))
        #expect(try Data(contentsOf: path) == afterReplica, "not rewritten within the hour")
        #expect(base.keeper().held?.confirmedAt == base.issued, "a restart now counts from the replica's own issue")
        try keeper.accept(try base.confirmation(version: 3, after: 3600), receivedAt: base.boot.instant)
        #expect(try Data(contentsOf: path) != afterReplica, "rewritten once the one on disk is an hour old")
        #expect(base.keeper().held?.confirmedAt == base.issued.addingTimeInterval(3600))
    }
}
