import Crypto
import Foundation
import Synchronization

/// What a site tells an adopted door of its replica keys at a check-in, while it rotates
/// them (`kioskpad verifier replica-key rotate`): `next` names the key it will sign with,
/// signed by the key the door trusts now, so the door may trust both; `current` says the
/// rotation is finished, signed by the new key itself, so a door that trusts that key drops
/// the old one. Each is bound to the door's terminal_id; neither carries a secret.
public enum ReplicaKeyStatement: Sendable, Equatable {
    /// The site will sign with `key`; signed by its current key.
    case next(ReplicaPublicKey)
    /// The site signs with `key` now and no other; signed by `key`.
    case current(ReplicaPublicKey)

    /// The key the statement names.
    public var key: ReplicaPublicKey {
        switch self {
        case .next(let key), .current(let key): key
        }
    }

    /// The JSON property of the check-in's `replica_key` object that carries the key.
    public var property: String {
        switch self {
        case .next: "next"
        case .current: "current"
        }
    }

    /// The bytes signed: the statement's kind, the door and the key, one per line.
    public func message(terminalID: String) -> Data {
        Data("kioskpad replica key\n\(property)\n\(terminalID)\n\(key)".utf8)
    }

    /// The Ed25519 signature (base64) over ``message(terminalID:)``.
    public func signature(terminalID: String, signer: Curve25519.Signing.PrivateKey) throws -> String {
        try signer.signature(for: message(terminalID: terminalID)).base64EncodedString()
    }

    /// Whether `signature` (base64) is `signer`'s over this statement for `terminalID`.
    public func isSigned(_ signature: String, terminalID: String, by signer: ReplicaPublicKey) -> Bool {
        guard let raw = Data(base64Encoded: signature) else { return false }
        return signer.key.isValidSignature(raw, for: message(terminalID: terminalID))
    }
}

/// The replica keys a door trusts: the one its site signs with, and during a rotation the
/// next one (``ReplicaKeyStatement``). Shared by whatever checks a site's signature on the
/// door (settings, replicas), and changed in place when a check-in brings a statement.
public final class ReplicaTrust: Sendable {
    private let keys: Mutex<(current: ReplicaPublicKey, next: ReplicaPublicKey?)>

    public init(current: ReplicaPublicKey, next: ReplicaPublicKey? = nil) {
        keys = Mutex((current, next == current ? nil : next))
    }

    /// The key the site signs with, as far as the door knows.
    public var current: ReplicaPublicKey { keys.withLock { $0.current } }
    /// The key the site said it will sign with, while a rotation is under way.
    public var next: ReplicaPublicKey? { keys.withLock { $0.next } }
    /// Every key trusted now, the current first.
    public var all: [ReplicaPublicKey] { keys.withLock { [$0.current] + ($0.next.map { [$0] } ?? []) } }

    /// Whether a trusted key made `signature` over `payload`.
    public func isValidSignature(_ signature: Data, for payload: Data) -> Bool {
        all.contains { $0.key.isValidSignature(signature, for: payload) }
    }

    /// The replica message, if a trusted key signed it.
    public func open(_ signed: SignedReplica) throws -> ReplicaMessage {
        var refusal: any Error = ReplicaError("no key is trusted")
        for key in all {
            do {
                return try signed.open(with: key)
            } catch {
                refusal = error
            }
        }
        throw refusal
    }

    /// Takes `statement` if `signature` checks: `next` signed by the current key adds it;
    /// `current` signed by itself, naming the next key, makes it the only one. Returns the
    /// keys to store, nil when nothing changed (already taken, or a signature that does not check).
    public func take(_ statement: ReplicaKeyStatement, signature: String, terminalID: String) -> (current: ReplicaPublicKey, next: ReplicaPublicKey?)? {
        keys.withLock { keys in
            switch statement {
            case .next(let key):
                guard key != keys.current, key != keys.next, statement.isSigned(signature, terminalID: terminalID, by: keys.current) else { return nil }
                keys.next = key
            case .current(let key):
                guard key == keys.next, statement.isSigned(signature, terminalID: terminalID, by: key) else { return nil }
                keys = (key, nil)
            }
            return keys
        }
    }
}
