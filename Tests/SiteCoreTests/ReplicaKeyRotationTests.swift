import Crypto
import Foundation
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import SiteCore
import Testing
import VerifierTestSupport

/// The site's replica key rotated, over each real store, through the doors' check-in
/// (``DoorCheckIn``) and ``ReplicaKeyChanges``: the next key is offered to an adopted door
/// that lacks it, signed by the current key; the rotation ends only once every adopted door
/// said it holds it (unless forced); then replicas and settings are signed with the new key,
/// the replica's version moves, and a door still trusting two keys is told which is left,
/// signed by that key. Each step is one audit record with public keys only.
extension DoorKeyRotationTests {
    func replicaKeys(_ store: StoreUnderTest) throws -> ReplicaKeyChanges {
        ReplicaKeyChanges(administration: store.administration, replica: try keeping(store), changes: changes(store))
    }

    func keeping(_ store: StoreUnderTest) throws -> any ReplicaKeeping {
        try #require(store.administration as? any ReplicaKeeping)
    }

    /// The statement a check-in answer carries and whether `signer` signed it for `door`.
    func statement(_ answer: [String: Any], door: String, signer: ReplicaPublicKey) throws -> (ReplicaKeyStatement, Bool)? {
        guard let object = answer["replica_key"] as? [String: String] else { return nil }
        let signature = try #require(object["signature"])
        let statement: ReplicaKeyStatement
        if let next = object["next"] {
            statement = .next(try ReplicaPublicKey(parsing: next))
        } else {
            statement = .current(try ReplicaPublicKey(parsing: try #require(object["current"])))
        }
        return (statement, statement.isSigned(signature, terminalID: door, by: signer))
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func theReplicaKeyRotatesOnlyOnceEveryAdoptedDoorHoldsTheNext(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await StoreUnderTest.make(kind)
        defer { Task { await store.destroy() } }
        let front = try await adopted(store, "front-door")
        let back = try await adopted(store, "back-door")
        let keys = try replicaKeys(store)
        let first = try await keeping(store).publicKey()
        let versionBefore = try await keeping(store).replicaVersion()

        // No rotation: a door that trusts the key is told nothing; a door that says nothing neither.
        #expect(try await checkIn(store, "front-door", signedWith: front, trusting: [first.description]).get()["replica_key"] == nil)
        #expect(await #expect(throws: ReplicaKeyChanges.Refusal.self) { try await keys.finish() }?.description.contains("no rotation") == true)

        let next = try await keys.rotate()
        #expect(next != first)
        #expect(await #expect(throws: ReplicaKeyChanges.Refusal.self) { try await keys.rotate() }?.description.contains("under way already") == true)
        #expect(try await keys.standing() == .init(current: first, next: next, ready: [], waiting: ["back-door", "front-door"]))
        #expect(try await checkIn(store, "front-door", signedWith: front).get()["replica_key"] == nil, "a door older than rotations says nothing")

        // The next key is offered, signed by the key the door trusts, for this door only.
        let offered = try await checkIn(store, "front-door", signedWith: front, trusting: [first.description]).get()
        let (said, signed) = try #require(try statement(offered, door: "front-door", signer: first))
        #expect(said == .next(next) && signed)
        #expect(try statement(offered, door: "back-door", signer: first)?.1 == false, "bound to the door it was said to")
        // Front door holds both now; back door has not said so: finishing is refused, naming it.
        _ = try await checkIn(store, "front-door", signedWith: front, trusting: [first.description, next.description]).get()
        #expect(try await keys.standing().ready == ["front-door"])
        let refused = await #expect(throws: ReplicaKeyChanges.Refusal.self) { try await keys.finish() }
        #expect(refused?.description.contains("back-door") == true && refused?.description.contains("front-door") == false)
        // Settings and replicas are still signed with the current key.
        let credentials = CredentialService(
            keeping: try keeping(store), administration: store.administration, store: store.store, siteSecret: siteSecret, clock: clock.read)
        #expect(try await keeping(store).signingKeys().currentPublic == first)

        _ = try await checkIn(store, "back-door", signedWith: back, trusting: [first.description, next.description]).get()
        try await keys.finish()
        #expect(try await keys.standing() == .init(current: next, next: nil, ready: [], waiting: []))
        #expect(try await keeping(store).replicaVersion() > versionBefore, "every door fetches a replica signed with the new key")
        let replica = try await credentials.replica(for: "front-door", now: clock.now)
        let signedReplica = try SignedReplica(signing: .replica(replica), with: try await keeping(store).signingKeys().current)
        #expect(throws: Never.self) { try signedReplica.open(with: next) }
        // A door still trusting both is told which is left, signed by that key; one trusting only it, nothing.
        let left = try await checkIn(store, "front-door", signedWith: front, trusting: [first.description, next.description]).get()
        let (current, signedByNew) = try #require(try statement(left, door: "front-door", signer: next))
        #expect(current == .current(next) && signedByNew)
        #expect(try await checkIn(store, "front-door", signedWith: front, trusting: [next.description]).get()["replica_key"] == nil)

        // A rotation a door never heard of can be forced to an end; the record names that door.
        try await keys.rotate()
        try await keys.finish(force: true)
        let audit = try await store.auditRecords().filter { $0["action"]?.hasPrefix("replica_key") == true }
        #expect(audit.map { $0["action"] } == ["replica_key_rotate", "replica_key_finish", "replica_key_rotate", "replica_key_finish"])
        #expect(audit.last?["doors_without_it"] == "back-door front-door" && audit[1]["doors_without_it"] == nil)
        #expect(audit[0]["next_key"] == next.description && audit[1]["key"] == next.description && audit[1]["previous_key"] == first.description)
        let raw = try await keeping(store).replicaSigningKey { [] }
        #expect(!audit.contains { $0.values.contains { $0.contains(Data(raw).base64EncodedString()) } }, "never a private key")
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aCheckInNamingKeysThatAreNotKeysIsRefused(_ kind: StoreUnderTest.Kind) async throws {
        let store = try await StoreUnderTest.make(kind)
        defer { Task { await store.destroy() } }
        let front = try await adopted(store, "front-door")
        for bad in [["ed25519:short"], ["a", "b", "c"]] {
            guard case .failure(let refused) = await checkIn(store, "front-door", signedWith: front, trusting: bad) else {
                Issue.record("replica_keys \(bad) was taken")
                continue
            }
            #expect(refused.reason.contains("replica_keys must be"), "\(refused.reason)")
        }
    }
}
