import Foundation
import KioskPadCore
import KioskPadStorage

/// The JSON a terminal posts (docs/protocol.md). Built by hand into a byte buffer so the
/// PIN is copied exactly once and the buffer can be zeroed after sending.
public enum VerificationRequestBody {
    public static func encode(_ attempt: VerificationAttempt) -> [UInt8] {
        var body = Array("{\"terminal_id\":\(jsonString(attempt.terminalID)),\"kind\":\"\(attempt.kind.rawValue)\",\"value\":\"".utf8)
        body.reserveCapacity(body.count + 160)
        attempt.value.withASCIIBytes { body.append(contentsOf: $0) }
        if let pin = attempt.pin {
            body += Array("\",\"pin\":\"".utf8)
            pin.withASCIIBytes { body.append(contentsOf: $0) }
        }
        body += Array("\",\"attempt_id\":\"\(attempt.attemptID.uuidString.lowercased())\",\"entered_at\":\"\(UTCTimestamp.rfc3339(attempt.enteredAt))\"}".utf8)
        return body
    }

    /// A JSON string literal (terminal ids are restricted, but be correct anyway).
    public static func jsonString(_ text: String) -> String {
        JSONValue.quoted(text)
    }

    /// A request as the reference verifier reads it.
    public struct Decoded: Sendable {
        public let terminalID: String
        public let kind: AttemptKind
        public let value: SecretDigits
        /// For `card_pin` only: the PIN typed after the card.
        public let pin: SecretDigits?
        public let attemptID: String
    }

    /// Why a request body was refused (400).
    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    public static func decode(_ body: [UInt8]) throws -> Decoded {
        // swift-format-ignore: AlwaysUseLowerCamelCase
        // The wire's own names, decoded as they are.
        struct Wire: Decodable {
            let terminal_id: String
            let kind: String
            let value: String
            let pin: String?
            let attempt_id: String
            let entered_at: String?
        }
        if let problem = DuplicateKeyCheck.firstProblem(in: body) {
            throw Invalid(description: "body is ambiguous or malformed JSON: \(problem)")
        }
        let wire: Wire
        do {
            wire = try JSONDecoder().decode(Wire.self, from: Data(body))
        } catch {
            throw Invalid(description: "body is not the verification JSON (terminal_id, kind, value, attempt_id, entered_at)")
        }
        // Held to the documented schema: a look-alike terminal_id (" door-7", a zero-width
        // space) would otherwise be answered under a name that reads as another door's.
        if let keys = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] {
            let unknown = Set(keys.keys).subtracting(["terminal_id", "kind", "value", "pin", "attempt_id", "entered_at"])
            if let first = unknown.sorted().first {
                throw Invalid(
                    description: "unknown property \(first) (the body has terminal_id, kind, value, attempt_id, entered_at, and pin with kind card_pin)")
            }
        }
        guard Identifier.isValid(wire.terminal_id) else {
            throw Invalid(description: "terminal_id must be 1-64 of letters, digits, '.', '_' or '-'")
        }
        guard let kind = AttemptKind(rawValue: wire.kind), kind != .enrol else { throw Invalid(description: "kind must be pin, code, card or card_pin") }
        guard EntryOptions.lengthRange.contains(wire.value.utf8.count), let value = SecretDigits(ascii: wire.value) else {
            throw Invalid(description: "value must be 4 to 12 digits")
        }
        var pin: SecretDigits?
        switch (kind, wire.pin) {
        case (.cardPIN, let text?):
            guard EntryOptions.lengthRange.contains(text.utf8.count), let digits = SecretDigits(ascii: text) else {
                throw Invalid(description: "pin must be 4 to 12 digits")
            }
            pin = digits
        case (.cardPIN, nil):
            throw Invalid(description: "kind card_pin needs pin (the PIN typed after the card; value is the card)")
        case (_, _?):
            throw Invalid(description: "pin is only sent with kind card_pin")
        case (_, nil):
            break
        }
        guard UUID(uuidString: wire.attempt_id) != nil else { throw Invalid(description: "attempt_id must be a UUID") }
        guard let entered = wire.entered_at, UTCTimestamp.parse(entered) != nil else {
            throw Invalid(description: "entered_at must be an RFC 3339 date-time such as 2026-11-20T10:00:00Z")
        }
        return Decoded(terminalID: wire.terminal_id, kind: kind, value: value, pin: pin, attemptID: wire.attempt_id)
    }
}

/// The verifier's answer: `{"decision": "granted"|"denied", "message": "...", "unlock_seconds": 5,
/// "user": "alice", "duress": true}` (`user` and `duress` optional, on grants only), and on a
/// denial at a card-and-PIN door `"reason": "second_factor_required"`: the one reason a
/// verifier sends, so the door asks for the PIN after a card.
public enum VerificationResponseBody {
    /// Why a response was not a decision (the terminal treats all of these as a verifier error).
    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    public static func decode(_ body: [UInt8]) throws -> AttemptOutcome {
        // swift-format-ignore: AlwaysUseLowerCamelCase
        // The wire's own names, decoded as they are.
        struct Wire: Decodable {
            let decision: String
            let message: String?
            let unlock_seconds: Int?
            let user: String?
            let duress: Bool?
            let reason: String?
        }
        if let problem = DuplicateKeyCheck.firstProblem(in: body) {
            throw Invalid(description: "response is ambiguous or malformed JSON: \(problem)")
        }
        let wire: Wire
        do {
            wire = try JSONDecoder().decode(Wire.self, from: Data(body))
        } catch {
            throw Invalid(description: "response is not the decision JSON")
        }
        let message = wire.message.map { String($0.prefix(200)) }
        if let user = wire.user, !Identifier.isValid(user) {
            throw Invalid(description: "user must be 1-64 of letters, digits, '.', '_' or '-'")
        }
        switch wire.decision {
        case "granted":
            // As sent: the door relay alone clamps it (to door.max_unlock_s and verifier.max_unlock_s).
            return .granted(message: message, unlockSeconds: wire.unlock_seconds, user: wire.user, duress: wire.duress ?? false)
        case "denied" where wire.duress == true:
            throw Invalid(description: "duress is only valid on a grant")
        case "denied":
            // Other reasons are not the door's to know (the display never says why): dropped.
            let reason = wire.reason.flatMap(DenialReason.init(rawValue:)).flatMap { DenialReason.wireReasons.contains($0) ? $0 : nil }
            return .denied(message: message, reason: reason)
        default:
            throw Invalid(description: "unknown decision (want granted or denied)")
        }
    }

    public static func encode(
        granted: Bool, message: String? = nil, unlockSeconds: Int? = nil, user: String? = nil, duress: Bool = false, reason: DenialReason? = nil
    ) -> [UInt8] {
        var text = "{\"decision\":\"\(granted ? "granted" : "denied")\""
        if let reason, !granted { text += ",\"reason\":\(VerificationRequestBody.jsonString(reason.rawValue))" }
        if let message { text += ",\"message\":\(VerificationRequestBody.jsonString(message))" }
        if let unlockSeconds { text += ",\"unlock_seconds\":\(unlockSeconds)" }
        if let user { text += ",\"user\":\(VerificationRequestBody.jsonString(user))" }
        if duress && granted { text += ",\"duress\":true" }
        return Array((text + "}").utf8)
    }
}
