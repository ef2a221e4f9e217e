import Crypto
import Foundation

/// The site's word that a door is retired (`verifier terminal retire`): sent on the push
/// channel to the retired door that asks, signed with the replica key in the envelope a
/// ``SignedDoorCommand`` uses, naming the door and the `nonce` of the request it answers, so
/// an old one is never taken again (a door retired, then added back under its name, is not
/// stopped by a recording). Its payload's `kind` is `door_retired`. A door that takes it stops
/// deciding offline: its replica is removed.
public struct DoorRetirement: Sendable, Equatable {
    public let terminalID: String
    /// The push request's nonce this answers.
    public let nonce: String
    public let issuedAt: Date

    public init(terminalID: String, nonce: String, issuedAt: Date) {
        self.terminalID = terminalID
        self.nonce = nonce
        self.issuedAt = issuedAt
    }

    /// The statement as JSON bytes (keys sorted), as they are signed.
    public func encoded() throws -> [UInt8] {
        let object: [String: Any] = ["kind": "door_retired", "terminal_id": terminalID, "nonce": nonce, "issued_at": ReplicaTime.format(issuedAt)]
        return Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }

    /// A statement from its signed bytes; an error names the field.
    public init(decoding bytes: [UInt8]) throws {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            throw ReplicaError("the retirement is not a JSON object")
        }
        guard object["kind"] as? String == "door_retired" else { throw ReplicaError("kind must be door_retired") }
        guard let terminal = object["terminal_id"] as? String else { throw ReplicaError("terminal_id is missing") }
        guard let nonce = object["nonce"] as? String else { throw ReplicaError("nonce is missing") }
        guard let stamp = object["issued_at"] as? String, let issued = ReplicaTime.parse(stamp) else {
            throw ReplicaError("issued_at must be an RFC 3339 time")
        }
        self.init(terminalID: terminal, nonce: nonce, issuedAt: issued)
    }
}

extension SignedDoorCommand {
    /// The envelope around a ``DoorRetirement``, signed with the site's replica key.
    public init(signing retirement: DoorRetirement, with key: Curve25519.Signing.PrivateKey) throws {
        let payload = try retirement.encoded()
        self.init(payload: payload, signature: Array(try key.signature(for: payload)))
    }

    /// The retirement, if a key `trust` holds signed these bytes; else an error.
    public func openRetirement(with trust: ReplicaTrust) throws -> DoorRetirement {
        guard trust.isValidSignature(Data(signature), for: Data(payload)) else {
            throw ReplicaError("the retirement's signature does not match the site's replica key")
        }
        return try DoorRetirement(decoding: payload)
    }
}
