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
        try decode(StrictJSON.parse(body))
    }

    /// The body as the one strict pass read it (``StrictJSON``), held to the documented
    /// schema: a look-alike terminal_id (" door-7", a zero-width space) would otherwise be
    /// answered under a name that reads as another door's. Each error names the field.
    public static func decode(_ parsed: Result<StrictJSON.Value, StrictJSON.Problem>) throws -> Decoded {
        let fields = try Self.fields(parsed)
        if let unknown = fields.unknownKey(allowed: ["terminal_id", "kind", "value", "pin", "attempt_id", "entered_at"]) {
            throw Invalid(
                description: "unknown property \(unknown) (the body has terminal_id, kind, value, attempt_id, entered_at, and pin with kind card_pin)")
        }
        let schema = "body is not the verification JSON (terminal_id, kind, value, attempt_id, entered_at)"
        for key in ["terminal_id", "kind", "value", "attempt_id"] where fields.string(key) == nil {
            throw Invalid(description: "\(schema): \(key) must be a string")
        }
        if fields.has("pin"), fields.bytes("pin") == nil { throw Invalid(description: "\(schema): pin must be a string") }
        if fields.has("entered_at"), fields.string("entered_at") == nil {
            throw Invalid(description: "entered_at must be an RFC 3339 date-time such as 2026-11-20T10:00:00Z")
        }
        let terminalID = fields.string("terminal_id") ?? ""
        let kindText = fields.string("kind") ?? ""
        let valueBytes = fields.bytes("value") ?? []
        let pinBytes = fields.bytes("pin")
        let attemptID = fields.string("attempt_id") ?? ""
        let enteredAt = fields.string("entered_at")
        guard Identifier.isValid(terminalID) else {
            throw Invalid(description: "terminal_id must be 1-64 of letters, digits, '.', '_' or '-'")
        }
        guard let kind = AttemptKind(rawValue: kindText), kind != .enrol else { throw Invalid(description: "kind must be pin, code, card or card_pin") }
        guard EntryOptions.lengthRange.contains(valueBytes.count), let value = SecretDigits(asciiBytes: valueBytes) else {
            throw Invalid(description: "value must be 4 to 12 digits")
        }
        var pin: SecretDigits?
        switch (kind, pinBytes) {
        case (.cardPIN, let text?):
            guard EntryOptions.lengthRange.contains(text.count), let digits = SecretDigits(asciiBytes: text) else {
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
        guard UUID(uuidString: attemptID) != nil else { throw Invalid(description: "attempt_id must be a UUID") }
        guard let entered = enteredAt, UTCTimestamp.parse(entered) != nil else {
            throw Invalid(description: "entered_at must be an RFC 3339 date-time such as 2026-11-20T10:00:00Z")
        }
        return Decoded(terminalID: terminalID, kind: kind, value: value, pin: pin, attemptID: attemptID)
    }

    /// The parsed body as an object's fields, or the 400 that names what is wrong.
    static func fields(_ parsed: Result<StrictJSON.Value, StrictJSON.Problem>, schema: String = "verification") throws -> StrictJSON.Fields {
        switch parsed {
        case .failure(let problem): throw Invalid(description: "body is ambiguous or malformed JSON: \(problem)")
        case .success(let value):
            guard let fields = StrictJSON.Fields(value) else { throw Invalid(description: "body is not the \(schema) JSON: it must be an object") }
            return fields
        }
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
        let fields: StrictJSON.Fields
        switch StrictJSON.parse(body) {
        case .failure(let problem): throw Invalid(description: "response is ambiguous or malformed JSON: \(problem)")
        case .success(let value):
            guard let object = StrictJSON.Fields(value) else { throw Invalid(description: "response is not the decision JSON") }
            fields = object
        }
        // Each field, when present and not null, of its type (as the decoder this replaced held them).
        let typed: [(String, Bool)] = [
            ("message", fields.string("message") != nil), ("unlock_seconds", fields.integer("unlock_seconds") != nil),
            ("user", fields.string("user") != nil), ("duress", fields.bool("duress") != nil), ("reason", fields.string("reason") != nil),
        ]
        guard let decision = fields.string("decision"), typed.allSatisfy({ !fields.has($0.0) || $0.1 }) else {
            throw Invalid(description: "response is not the decision JSON")
        }
        let unlockSeconds = fields.integer("unlock_seconds").flatMap { Int(exactly: $0) }
        let user = fields.string("user")
        let duress = fields.bool("duress")
        let reasonText = fields.string("reason")
        let message = fields.string("message").map { String($0.prefix(200)) }
        if let user, !Identifier.isValid(user) {
            throw Invalid(description: "user must be 1-64 of letters, digits, '.', '_' or '-'")
        }
        switch Decision(rawValue: decision) {
        case .granted?:
            // As sent: the door relay alone clamps it (to door.max_unlock_s and verifier.max_unlock_s).
            return .granted(message: message, unlockSeconds: unlockSeconds, user: user, duress: duress ?? false)
        case .denied? where duress == true:
            throw Invalid(description: "duress is only valid on a grant")
        case .denied?:
            // Other reasons are not the door's to know (the display never says why): dropped.
            let reason = reasonText.flatMap(DenialReason.init(rawValue:)).flatMap { DenialReason.wireReasons.contains($0) ? $0 : nil }
            return .denied(message: message, reason: reason)
        default:
            throw Invalid(description: "unknown decision (want granted or denied)")
        }
    }

    public static func encode(
        granted: Bool, message: String? = nil, unlockSeconds: Int? = nil, user: String? = nil, duress: Bool = false, reason: DenialReason? = nil
    ) -> [UInt8] {
        var text = "{\"decision\":\"\((granted ? Decision.granted : .denied).rawValue)\""
        if let reason, !granted { text += ",\"reason\":\(VerificationRequestBody.jsonString(reason.rawValue))" }
        if let message { text += ",\"message\":\(VerificationRequestBody.jsonString(message))" }
        if let unlockSeconds { text += ",\"unlock_seconds\":\(unlockSeconds)" }
        if let user { text += ",\"user\":\(VerificationRequestBody.jsonString(user))" }
        if duress && granted { text += ",\"duress\":true" }
        return Array((text + "}").utf8)
    }
}
