import Crypto
import Foundation
import KioskPadAccess
import Testing

/// The replica keys a door trusts while its site rotates them: the next key is taken only
/// when the key trusted now signed it for this door; the rotation's end only when the new
/// key signed it and it is the one announced; replicas and settings signed with either key
/// are taken meanwhile, and with the old one no longer once the rotation ended.
@Suite("Replica keys trusted through a rotation")
struct ReplicaTrustTests {
    let first = Curve25519.Signing.PrivateKey()
    let next = Curve25519.Signing.PrivateKey()
    var firstKey: ReplicaPublicKey { ReplicaPublicKey(first.publicKey) }
    var nextKey: ReplicaPublicKey { ReplicaPublicKey(next.publicKey) }

    @Test func theNextKeyIsTakenOnlyWhenTheTrustedKeySignedItForThisDoor() throws {
        let trust = ReplicaTrust(current: firstKey)
        let statement = ReplicaKeyStatement.next(nextKey)
        let byStranger = try statement.signature(terminalID: "front-door", signer: Curve25519.Signing.PrivateKey())
        #expect(trust.take(statement, signature: byStranger, terminalID: "front-door") == nil)
        let forAnother = try statement.signature(terminalID: "back-door", signer: first)
        #expect(trust.take(statement, signature: forAnother, terminalID: "front-door") == nil, "bound to the door")
        #expect(trust.take(statement, signature: "not base64!", terminalID: "front-door") == nil)
        let signed = try statement.signature(terminalID: "front-door", signer: first)
        let keys = try #require(trust.take(statement, signature: signed, terminalID: "front-door"))
        #expect(keys.current == firstKey && keys.next == nextKey && trust.all == [firstKey, nextKey])
        #expect(trust.take(statement, signature: signed, terminalID: "front-door") == nil, "taken once: nothing changes")

        // Meanwhile both keys' signatures count.
        let payload = Data("settings".utf8)
        #expect(trust.isValidSignature(try first.signature(for: payload), for: payload))
        #expect(trust.isValidSignature(try next.signature(for: payload), for: payload))
    }

    @Test func theRotationEndsOnlyWithTheAnnouncedKeysOwnSignature() throws {
        let trust = ReplicaTrust(current: firstKey, next: nextKey)
        let end = ReplicaKeyStatement.current(nextKey)
        // Signed by the old key (a thief of it cannot end the rotation), or naming another key: refused.
        #expect(trust.take(end, signature: try end.signature(terminalID: "front-door", signer: first), terminalID: "front-door") == nil)
        let other = Curve25519.Signing.PrivateKey()
        let elsewhere = ReplicaKeyStatement.current(ReplicaPublicKey(other.publicKey))
        #expect(trust.take(elsewhere, signature: try elsewhere.signature(terminalID: "front-door", signer: other), terminalID: "front-door") == nil)
        let keys = try #require(trust.take(end, signature: try end.signature(terminalID: "front-door", signer: next), terminalID: "front-door"))
        #expect(keys.current == nextKey && keys.next == nil && trust.all == [nextKey])
        let payload = Data("replica".utf8)
        #expect(!trust.isValidSignature(try first.signature(for: payload), for: payload), "the old key no longer counts")
        let replica = try SignedReplica(signing: .confirmation(terminalID: "front-door", version: 3, issuedAt: Date()), with: first)
        #expect(throws: ReplicaError.self) { try trust.open(replica) }
    }
}
