import Crypto
import Foundation

/// What an administrator at the desk tells one door to do (`POST /api/v1/doors/{id}/unlock`,
/// the console's **Unlock** and **Lock**), as the site signs it with its replica key and sends
/// it on the door's push channel (`POST /v1/watch`).
///
/// A command names its door, its number (the site's sequence: a door acts on each number
/// once, rising) and the `nonce` of the push request it answers, so it is fresh without
/// trusting either clock: the door makes a new nonce for every request and takes a command
/// only in the answer to the request that carried it. Its payload's `kind` is
/// `door_command`, which no replica message has, so one can never be taken for the other.
public struct DoorCommand: Sendable, Equatable {
    /// What the door does.
    public enum Action: String, Sendable, CaseIterable {
        /// The relay on for `seconds` (nil: the door's own unlock time, a pulse).
        case unlock
        /// The relay off now, ending an unlock (a grant's or a remote one).
        case lock
    }

    /// The most a remote unlock may hold the door open, in seconds (the door's own
    /// `door.max_unlock_s` may cut it shorter).
    public static let maxSeconds = 300

    public let terminalID: String
    /// The site's number for the command: later commands have larger ones.
    public let id: Int64
    public let action: Action
    public let seconds: Int?
    /// The push request's nonce this command answers (base64 of 16 random bytes).
    public let nonce: String
    public let issuedAt: Date

    public init(terminalID: String, id: Int64, action: Action, seconds: Int?, nonce: String, issuedAt: Date) {
        self.terminalID = terminalID
        self.id = id
        self.action = action
        self.seconds = seconds
        self.nonce = nonce
        self.issuedAt = issuedAt
    }

    /// The command as JSON bytes (keys sorted), as they are signed.
    public func encoded() throws -> [UInt8] {
        var object: [String: Any] = [
            "kind": "door_command", "terminal_id": terminalID, "command": id, "action": action.rawValue, "nonce": nonce,
            "issued_at": ReplicaTime.format(issuedAt),
        ]
        if let seconds { object["seconds"] = seconds }
        return Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }

    /// A command from its signed bytes; an error names the field.
    public init(decoding bytes: [UInt8]) throws {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            throw ReplicaError("the command is not a JSON object")
        }
        guard object["kind"] as? String == "door_command" else { throw ReplicaError("kind must be door_command") }
        guard let terminal = object["terminal_id"] as? String else { throw ReplicaError("terminal_id is missing") }
        guard let id = (object["command"] as? NSNumber)?.int64Value, id > 0 else { throw ReplicaError("command must be a positive integer") }
        guard let action = (object["action"] as? String).flatMap(Action.init(rawValue:)) else {
            throw ReplicaError("action must be one of \(Action.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard let nonce = object["nonce"] as? String else { throw ReplicaError("nonce is missing") }
        guard let stamp = object["issued_at"] as? String, let issued = ReplicaTime.parse(stamp) else {
            throw ReplicaError("issued_at must be an RFC 3339 time")
        }
        var seconds: Int?
        if let value = object["seconds"] {
            guard let number = (value as? NSNumber)?.intValue, (1...Self.maxSeconds).contains(number) else {
                throw ReplicaError("seconds must be a whole number from 1 to \(Self.maxSeconds)")
            }
            seconds = number
        }
        self.init(terminalID: terminal, id: id, action: action, seconds: seconds, nonce: nonce, issuedAt: issued)
    }

    /// A fresh nonce for one push request: 16 random bytes in base64.
    public static func makeNonce() -> String {
        Data(SymmetricKey(size: .bits128).withUnsafeBytes { Array($0) }).base64EncodedString()
    }
}

/// A ``DoorCommand`` with the site's Ed25519 signature (its replica key) over its exact
/// bytes: `{"payload": BASE64, "signature": BASE64}`, as in a signed replica.
public struct SignedDoorCommand: Sendable, Equatable {
    public let payload: [UInt8]
    public let signature: [UInt8]

    public init(payload: [UInt8], signature: [UInt8]) {
        self.payload = payload
        self.signature = signature
    }

    /// Signs `command` with the site's replica key.
    public init(signing command: DoorCommand, with key: Curve25519.Signing.PrivateKey) throws {
        payload = try command.encoded()
        signature = Array(try key.signature(for: payload))
    }

    /// The object the push channel's answer carries in `commands`: a signed replica's envelope.
    public var jsonObject: [String: String] { SignedReplica(payload: payload, signature: signature).jsonObject }

    public init(jsonObject object: Any?) throws {
        guard let envelope = try? SignedReplica(jsonObject: object) else {
            throw ReplicaError("a signed command is {\"payload\": BASE64, \"signature\": BASE64}")
        }
        self.init(payload: envelope.payload, signature: envelope.signature)
    }

    /// The command, if a key `trust` holds signed these bytes; else an error.
    public func open(with trust: ReplicaTrust) throws -> DoorCommand {
        guard trust.isValidSignature(Data(signature), for: Data(payload)) else {
            throw ReplicaError("the command's signature does not match the site's replica key")
        }
        return try DoorCommand(decoding: payload)
    }
}
