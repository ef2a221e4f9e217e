import Crypto
import Foundation
import KioskPadAccess

/// Rotating the key a site signs replicas and settings with: the one core the command line,
/// the console and the API go through, each step one audit record (`replica_key_rotate`,
/// `replica_key_finish`, carrying the public keys, never a private one).
///
/// No door is refused on the way: ``rotate()`` makes the next key, and each adopted door is
/// told of it at its next check-in, signed by the key it trusts now (``ReplicaKeyStatement``),
/// and says it trusts both. ``finish(force:)`` then makes the next key the one that signs;
/// it is refused while an adopted door has not said it holds the next key, unless forced (a
/// door left behind keeps running what it has, but takes no settings or replica until it is
/// adopted again). Doors given the key by hand (`verifier.offline.public_key`) need the new
/// one in their file: ``Standing/next`` is what to write there.
public struct ReplicaKeyChanges: Sendable {
    let administration: any VerifierAdministration
    let replica: any ReplicaKeeping
    let changes: AdministratorChanges

    public init(administration: any VerifierAdministration, replica: any ReplicaKeeping, changes: AdministratorChanges) {
        self.administration = administration
        self.replica = replica
        self.changes = changes
    }

    /// Where the replica key stands: the key that signs, the next one during a rotation, and
    /// which adopted doors hold it.
    public struct Standing: Sendable, Equatable {
        public let current: ReplicaPublicKey
        public let next: ReplicaPublicKey?
        /// Adopted doors (not retired) that said they trust the next key.
        public let ready: [String]
        /// Adopted doors (not retired) that have not yet said so.
        public let waiting: [String]

        public init(current: ReplicaPublicKey, next: ReplicaPublicKey?, ready: [String], waiting: [String]) {
            self.current = current
            self.next = next
            self.ready = ready
            self.waiting = waiting
        }
    }

    /// Why a step was refused; the API answers each with 409.
    public struct Refusal: Error, CustomStringConvertible {
        public let description: String
    }

    public func standing() async throws -> Standing {
        let keys = try await replica.signingKeys()
        let adopted = try await administration.doors().filter { $0.standing == .adopted || $0.standing == .rotating }.map(\.terminalID)
        let states = try await administration.settingsStates()
        var ready: [String] = []
        var waiting: [String] = []
        if let next = keys.nextPublic {
            for door in adopted.sorted() {
                if states[door]?.replicaKeys.contains(next.description) == true { ready.append(door) } else { waiting.append(door) }
            }
        }
        return Standing(current: keys.currentPublic, next: keys.nextPublic, ready: ready, waiting: waiting)
    }

    /// Starts a rotation: makes the next key; refused while one is under way.
    @discardableResult
    public func rotate() async throws -> ReplicaPublicKey {
        try await changes.apply(
            .replicaKeyRotate,
            reporting: { () async throws -> (ReplicaPublicKey, [(String, String)]) in
                let next = Curve25519.Signing.PrivateKey()
                guard try await replica.beginReplicaKeyRotation(next: Array(next.rawRepresentation)) else {
                    throw Refusal(
                        description:
                            "a rotation of the replica key is under way already; finish it first (`kioskpad verifier replica-key finish`)")
                }
                let key = ReplicaPublicKey(next.publicKey)
                return (key, [("next_key", key.description)])
            })
    }

    /// Ends the rotation: the next key signs from now on. Refused when none is under way,
    /// and, unless `force`, while an adopted door has not said it holds the next key (named).
    public func finish(force: Bool = false) async throws {
        let now = try await standing()
        guard let next = now.next else {
            throw Refusal(description: "no rotation of the replica key is under way; start one with `kioskpad verifier replica-key rotate`")
        }
        if !now.waiting.isEmpty && !force {
            throw Refusal(
                description:
                    "door\(now.waiting.count == 1 ? "" : "s") \(now.waiting.joined(separator: ", ")) "
                    + "\(now.waiting.count == 1 ? "has" : "have") not yet said \(now.waiting.count == 1 ? "it holds" : "they hold") the next key "
                    + "(a door learns it at its next check-in); finish again once \(now.waiting.count == 1 ? "it has" : "they have"), "
                    + "or force it (such a door then takes no settings until it is adopted again)")
        }
        var fields = [("key", next.description), ("previous_key", now.current.description)]
        if !now.waiting.isEmpty { fields.append(("doors_without_it", now.waiting.joined(separator: " "))) }
        try await changes.apply(.replicaKeyFinish, fields) {
            guard try await replica.finishReplicaKeyRotation() else {
                throw Refusal(description: "no rotation of the replica key is under way (another administrator finished it)")
            }
        }
    }
}
