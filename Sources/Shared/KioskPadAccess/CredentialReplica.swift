import Crypto
import Foundation
import KioskPadStorage

/// What one door may admit when its verifier cannot answer (`POST /v1/credentials`): the
/// users who may open it with the hashes of their PINs, duress PINs and cards (never a PIN,
/// never a TOTP secret or one-time code), their rules, the schedules those name, the site's
/// holidays and zone, the door's mode (lockdown, release) and whether it asks for a card and
/// a PIN, under a version that only grows. The verifier signs it with its Ed25519
/// key; a terminal pins the public key, so it can check a replica but never make one.
public struct CredentialReplica: Sendable, Equatable {
    /// One hash a user may open with.
    public struct Entry: Sendable, Equatable {
        public let user: String
        /// `pin`, `duress` or `card`.
        public let kind: String
        public let hash: PINHash
        /// The hash's replica tag cut to the replica's ``CredentialReplica/tagBits`` (hex);
        /// nil for a hash set before tags (it is checked in full on every attempt).
        public let tag: String?

        public init(user: String, kind: String, hash: PINHash, tag: String? = nil) {
            self.user = user
            self.kind = kind
            self.hash = hash
            self.tag = tag
        }
    }

    public let terminalID: String
    public let version: Int64
    /// The verifier's clock when it signed this (a terminal without a trusted clock counts from it).
    public let issuedAt: Date
    public let timeZone: String?
    /// The schedules the rules name: name to spec.
    public let schedules: [String: String]
    /// Users whose rule is not the default: user to rule text (``AccessRule/fields``), each
    /// compiled for this door (levels and groups resolved: the door never sees the tree).
    public let rules: [String: String]
    public let entries: [Entry]
    /// The key of the entries' tags (``ReplicaTagKey``), and how many bits of each are kept.
    public let tagKey: [UInt8]?
    public let tagBits: Int
    /// Holidays by date (`2026-12-25`): their rule (``Holiday/rule``).
    public let holidays: [String: String]
    /// The mode the door follows (the site's or its own), nil for normal.
    public let mode: DoorModes.Setting?
    /// Seconds the door may decide offline since its last sync (``SiteRules/modeCheck``).
    public let modeCheck: Int?
    /// The door's unlock schedule (its schedule's spec is in ``schedules``).
    public let unlock: DoorUnlockSchedule?
    /// Whether (and when) the door asks for a card and then its holder's PIN.
    public let cardAndPIN: CardAndPINRule?
    /// The site's mark of ``version`` (the time of its change-log entry): a door that sends it
    /// back with the version may be sent a ``CredentialReplicaDelta`` instead of the whole
    /// replica; nil from a site without one (the door then always gets the whole replica).
    public let mark: String?

    public init(
        terminalID: String, version: Int64, issuedAt: Date, timeZone: String?, schedules: [String: String], rules: [String: String], entries: [Entry],
        tagKey: [UInt8]? = nil, tagBits: Int = 0, holidays: [String: String] = [:], mode: DoorModes.Setting? = nil, modeCheck: Int? = nil,
        unlock: DoorUnlockSchedule? = nil, cardAndPIN: CardAndPINRule? = nil, mark: String? = nil
    ) {
        self.mark = mark
        self.cardAndPIN = cardAndPIN
        self.unlock = unlock
        self.modeCheck = modeCheck
        self.holidays = holidays
        self.mode = mode
        self.tagKey = tagKey
        self.tagBits = tagBits
        self.terminalID = terminalID
        self.version = version
        self.issuedAt = issuedAt
        self.timeZone = timeZone
        self.schedules = schedules
        self.rules = rules
        self.entries = entries
    }

    /// The rules beyond the base ones this replica uses. A responder is read from the rule's
    /// parsed fields (a rule that does not parse is refused where the door compiles it).
    public var requires: [ReplicaRequirement] {
        let (responders, anyOfSchedules) = Self.ruleNeeds(rules)
        return ReplicaRequirement.needed(
            holidays: !holidays.isEmpty, lockdown: mode != nil || modeCheck != nil || responders, unlockSchedule: unlock != nil, cardPIN: cardAndPIN != nil,
            accessLevels: anyOfSchedules)
    }

    /// What `rules` (user to rule text) need beyond the base rules: a responder (lockdown), a
    /// rule naming several schedules (access levels). A replica's and a delta's alike.
    static func ruleNeeds(_ rules: [String: String]) -> (responders: Bool, anyOfSchedules: Bool) {
        let parsed = rules.values.map { try? AccessRule(text: $0) }
        return (parsed.contains { $0?.responder == true }, parsed.contains { ($0?.scheduleNames.count ?? 0) > 1 })
    }
}

/// What `/v1/credentials` answers, inside its signature: the whole replica; what changed
/// since the version the terminal holds, when it asked for that and only users changed; or,
/// when the terminal holds the current version, a confirmation that renews the replica's age.
public enum ReplicaMessage: Sendable, Equatable {
    case replica(CredentialReplica)
    case delta(CredentialReplicaDelta)
    case confirmation(terminalID: String, version: Int64, issuedAt: Date)

    public var version: Int64 {
        switch self {
        case .replica(let replica): replica.version
        case .delta(let delta): delta.version
        case .confirmation(_, let version, _): version
        }
    }

    public var terminalID: String {
        switch self {
        case .replica(let replica): replica.terminalID
        case .delta(let delta): delta.terminalID
        case .confirmation(let terminal, _, _): terminal
        }
    }

    /// The message as JSON bytes (keys sorted), as they are signed.
    public func encoded() throws -> [UInt8] {
        var object: [String: Any] = ["terminal_id": terminalID, "version": version]
        switch self {
        case .replica(let replica):
            object["kind"] = "replica"
            object["issued_at"] = ReplicaTime.format(replica.issuedAt)
            object["time_zone"] = replica.timeZone ?? NSNull()
            object["schedules"] = replica.schedules
            object["rules"] = replica.rules
            object["entries"] = replica.entries.map(\.jsonObject)
            if let mark = replica.mark { object["mark"] = mark }
            object["tag_key"] = replica.tagKey.map { Data($0).base64EncodedString() } ?? NSNull()
            object["tag_bits"] = replica.tagBits
            if !replica.holidays.isEmpty { object["holidays"] = replica.holidays }
            if let mode = replica.mode {
                object["mode"] = ["mode": mode.mode.rawValue, "set_by": mode.setBy, "set_at": ReplicaTime.format(mode.setAt)]
            }
            if let seconds = replica.modeCheck { object["mode_check_s"] = seconds }
            if let unlock = replica.unlock { object["unlock"] = unlock.rule }
            if let rule = replica.cardAndPIN { object["card_pin"] = rule.rule }
            let requires = replica.requires
            if !requires.isEmpty { object["requires"] = requires.map(\.rawValue) }
        case .delta(let delta):
            object.merge(delta.fields()) { _, new in new }
            object["kind"] = "delta"
            object["issued_at"] = ReplicaTime.format(delta.issuedAt)
            let requires = delta.requires
            if !requires.isEmpty { object["requires"] = requires.map(\.rawValue) }
        case .confirmation(_, _, let issuedAt):
            object["kind"] = "confirmation"
            object["issued_at"] = ReplicaTime.format(issuedAt)
        }
        return Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }

    /// A message from its signed bytes; an error names the field.
    public init(decoding bytes: [UInt8]) throws {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            throw ReplicaError("the payload is not a JSON object")
        }
        guard let terminal = object["terminal_id"] as? String else { throw ReplicaError("terminal_id is missing") }
        guard let version = (object["version"] as? NSNumber)?.int64Value, version > 0 else { throw ReplicaError("version must be a positive integer") }
        guard let stamp = object["issued_at"] as? String, let issued = ReplicaTime.parse(stamp) else {
            throw ReplicaError("issued_at must be an RFC 3339 time")
        }
        // Rules a newer site adds (holidays, two factors, lockdown, ...) come with their names
        // in `requires`: a door that does not know one refuses the whole message, so it never
        // decides offline by fewer rules than the server decides by.
        if let required = object["requires"] {
            guard let names = required as? [String] else { throw ReplicaError("requires must be a list of rule names") }
            if let unknown = names.first(where: { ReplicaRequirement(rawValue: $0) == nil }) {
                throw ReplicaError(
                    "the replica requires '\(unknown)', rules this version of kioskpad does not apply; update the door (it will not decide offline by fewer rules than the site)"
                )
            }
        }
        switch object["kind"] as? String {
        case "confirmation":
            self = .confirmation(terminalID: terminal, version: version, issuedAt: issued)
        case "delta":
            self = .delta(try CredentialReplicaDelta(terminalID: terminal, version: version, issuedAt: issued, object: object))
        case "replica":
            guard let schedules = object["schedules"] as? [String: String], let rules = object["rules"] as? [String: String],
                let rows = object["entries"] as? [[String: String]]
            else { throw ReplicaError("schedules, rules and entries must be objects of strings") }
            let entries = try CredentialReplica.Entry.list(rows)
            var tagKey: [UInt8]?
            if let text = object["tag_key"] as? String {
                guard let raw = Data(base64Encoded: text), raw.count == 32 else { throw ReplicaError("tag_key must be 32 bytes in base64") }
                tagKey = Array(raw)
            }
            let bits = (object["tag_bits"] as? NSNumber)?.intValue ?? 0
            guard (0...32).contains(bits) else { throw ReplicaError("tag_bits must be 0 to 32") }
            let holidays = object["holidays"] ?? [String: String]()
            guard let holidays = holidays as? [String: String] else { throw ReplicaError("holidays must be an object of date to rule") }
            var mode: DoorModes.Setting?
            if let raw = object["mode"] {
                guard let fields = raw as? [String: String], let name = fields["mode"].flatMap(DoorMode.init(rawValue:)),
                    let setBy = fields["set_by"], let setAt = fields["set_at"].flatMap(ReplicaTime.parse)
                else { throw ReplicaError("mode must be {mode: normal, lockdown or release; set_by; set_at: RFC 3339}") }
                mode = DoorModes.Setting(mode: name, setBy: setBy, setAt: setAt)
            }
            var modeCheck: Int?
            if let raw = object["mode_check_s"] {
                guard let seconds = (raw as? NSNumber)?.intValue, seconds > 0 else { throw ReplicaError("mode_check_s must be a positive number of seconds") }
                modeCheck = seconds
            }
            var unlock: DoorUnlockSchedule?
            if let raw = object["unlock"] {
                guard let text = raw as? String, let parsed = DoorUnlockSchedule(rule: text), schedules[parsed.schedule] != nil else {
                    throw ReplicaError("unlock must be \"schedule=NAME [first_in]\" naming one of the replica's schedules")
                }
                unlock = parsed
            }
            var cardAndPIN: CardAndPINRule?
            if let raw = object["card_pin"] {
                guard let text = raw as? String, let parsed = CardAndPINRule(rule: text), parsed.schedule.map({ schedules[$0] != nil }) ?? true else {
                    throw ReplicaError("card_pin must be \"always\" or \"schedule=NAME\" naming one of the replica's schedules")
                }
                cardAndPIN = parsed
            }
            self = .replica(
                CredentialReplica(
                    terminalID: terminal, version: version, issuedAt: issued, timeZone: object["time_zone"] as? String,
                    schedules: schedules, rules: rules, entries: entries, tagKey: tagKey, tagBits: bits, holidays: holidays, mode: mode,
                    modeCheck: modeCheck, unlock: unlock, cardAndPIN: cardAndPIN, mark: object["mark"] as? String))
        default:
            throw ReplicaError("kind must be replica, delta or confirmation")
        }
    }
}

/// A replica message with the verifier's Ed25519 signature over its exact bytes, as
/// `/v1/credentials` sends it and a terminal keeps it: `{"payload": BASE64, "signature": BASE64}`.
public struct SignedReplica: Sendable, Equatable {
    public let payload: [UInt8]
    public let signature: [UInt8]

    public init(payload: [UInt8], signature: [UInt8]) {
        self.payload = payload
        self.signature = signature
    }

    /// Signs `message` with the verifier's key.
    public init(signing message: ReplicaMessage, with key: Curve25519.Signing.PrivateKey) throws {
        payload = try message.encoded()
        signature = Array(try key.signature(for: payload))
    }

    /// The JSON document sent and stored.
    public var json: [UInt8] {
        Array("{\"payload\":\"\(Data(payload).base64EncodedString())\",\"signature\":\"\(Data(signature).base64EncodedString())\"}".utf8)
    }

    /// The same document as an object, for a file that holds it among other fields.
    public var jsonObject: [String: String] {
        ["payload": Data(payload).base64EncodedString(), "signature": Data(signature).base64EncodedString()]
    }

    public init(json bytes: [UInt8]) throws {
        try self.init(jsonObject: try? JSONSerialization.jsonObject(with: Data(bytes)))
    }

    /// From the document parsed as JSON (``jsonObject``'s shape).
    public init(jsonObject object: Any?) throws {
        guard let object = object as? [String: Any],
            let payload = (object["payload"] as? String).flatMap({ Data(base64Encoded: $0) }),
            let signature = (object["signature"] as? String).flatMap({ Data(base64Encoded: $0) })
        else { throw ReplicaError("a signed replica is {\"payload\": BASE64, \"signature\": BASE64}") }
        self.init(payload: Array(payload), signature: Array(signature))
    }

    /// The message, if `key` signed these bytes; else an error (a tampered or foreign replica).
    public func open(with key: ReplicaPublicKey) throws -> ReplicaMessage {
        guard key.key.isValidSignature(signature, for: payload) else {
            throw ReplicaError("the signature does not match the verifier's public key \(key)")
        }
        return try ReplicaMessage(decoding: payload)
    }
}

/// The verifier's replica-signing public key as config and `verifier public-key` write it:
/// `ed25519:` and the 32-byte key in base64.
public struct ReplicaPublicKey: Sendable, Equatable, CustomStringConvertible {
    public let key: Curve25519.Signing.PublicKey

    public init(_ key: Curve25519.Signing.PublicKey) {
        self.key = key
    }

    public init(parsing text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix("ed25519:"), let raw = Data(base64Encoded: String(trimmed.dropFirst("ed25519:".count))), raw.count == 32,
            let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw)
        else { throw ReplicaError("a public key is ed25519: and 32 bytes in base64 (`kioskpad verifier public-key` prints it)") }
        self.key = key
    }

    public var description: String { "ed25519:" + key.rawRepresentation.base64EncodedString() }

    public static func == (lhs: ReplicaPublicKey, rhs: ReplicaPublicKey) -> Bool { lhs.key.rawRepresentation == rhs.key.rawRepresentation }
}

/// Why a replica was refused.
public struct ReplicaError: Error, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// RFC 3339 with milliseconds, UTC.
enum ReplicaTime {
    static func format(_ date: Date) -> String {
        UTCTimestamp.rfc3339(date, milliseconds: true)
    }

    static func parse(_ text: String) -> Date? {
        UTCTimestamp.parse(text)
    }
}
