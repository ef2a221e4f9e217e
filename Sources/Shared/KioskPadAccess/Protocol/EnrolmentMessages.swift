import Foundation
import KioskPadCore
import KioskPadStorage

/// The JSON a terminal posts to `POST /v1/enrol` (docs/protocol.md): the enrolment code and
/// the PIN chosen, `{"terminal_id", "code", "pin", "attempt_id", "entered_at"}`. Built by hand
/// into a byte buffer, as the verification body is, so each secret is copied once.
public enum EnrolmentRequestBody {
    public static func encode(terminalID: String, code: SecretDigits, pin: SecretDigits, attemptID: UUID, enteredAt: Date) -> [UInt8] {
        var body = Array("{\"terminal_id\":\(VerificationRequestBody.jsonString(terminalID)),\"code\":\"".utf8)
        code.withASCIIBytes { body.append(contentsOf: $0) }
        body += Array("\",\"pin\":\"".utf8)
        pin.withASCIIBytes { body.append(contentsOf: $0) }
        body += Array("\",\"attempt_id\":\"\(attemptID.uuidString.lowercased())\",\"entered_at\":\"\(UTCTimestamp.rfc3339(enteredAt))\"}".utf8)
        return body
    }

    /// A request as the reference verifier reads it.
    public struct Decoded: Sendable {
        public let terminalID: String
        public let code: SecretDigits
        public let pin: SecretDigits
        public let attemptID: String
    }

    public static func decode(_ body: [UInt8]) throws -> Decoded {
        try decode(StrictJSON.parse(body))
    }

    /// Held to the documented schema, as the verification body is; an error names the field.
    public static func decode(_ parsed: Result<StrictJSON.Value, StrictJSON.Problem>) throws -> Decoded {
        typealias Invalid = VerificationRequestBody.Invalid
        let names = "terminal_id, code, pin, attempt_id, entered_at"
        let fields = try VerificationRequestBody.fields(parsed, schema: "enrolment")
        for key in ["terminal_id", "code", "pin", "attempt_id", "entered_at"] where fields.string(key) == nil {
            throw Invalid(description: "body is not the enrolment JSON (\(names)): \(key) must be a string")
        }
        if let unknown = fields.unknownKey(allowed: ["terminal_id", "code", "pin", "attempt_id", "entered_at"]) {
            throw Invalid(description: "unknown property \(unknown) (the body has \(names))")
        }
        let terminalID = fields.string("terminal_id") ?? ""
        let codeBytes = fields.bytes("code") ?? []
        let pinBytes = fields.bytes("pin") ?? []
        let attemptID = fields.string("attempt_id") ?? ""
        let enteredAt = fields.string("entered_at") ?? ""
        guard Identifier.isValid(terminalID) else { throw Invalid(description: "terminal_id must be 1-64 of letters, digits, '.', '_' or '-'") }
        guard EntryOptions.lengthRange.contains(codeBytes.count), let code = SecretDigits(asciiBytes: codeBytes) else {
            throw Invalid(description: "code must be 4 to 12 digits")
        }
        guard EntryOptions.lengthRange.contains(pinBytes.count), let pin = SecretDigits(asciiBytes: pinBytes) else {
            throw Invalid(description: "pin must be 4 to 12 digits")
        }
        guard UUID(uuidString: attemptID) != nil else { throw Invalid(description: "attempt_id must be a UUID") }
        guard UTCTimestamp.parse(enteredAt) != nil else {
            throw Invalid(description: "entered_at must be an RFC 3339 date-time such as 2026-11-20T10:00:00Z")
        }
        return Decoded(terminalID: terminalID, code: code, pin: pin, attemptID: attemptID)
    }
}

/// `/v1/enrol`'s answer: `{"result": "pin_set", "user": "ana"}` or `{"result": "refused",
/// "reason": "invalid_code" | "weak_pin" | "previous_pin" | "locked_out"}`.
public enum EnrolmentResponseBody {

    public static func encode(_ outcome: EnrolmentOutcome) -> [UInt8] {
        switch outcome {
        case .pinSet(let user?): return Array("{\"result\":\"pin_set\",\"user\":\(VerificationRequestBody.jsonString(user))}".utf8)
        case .pinSet(nil): return Array("{\"result\":\"pin_set\"}".utf8)
        case .refused(let reason): return Array("{\"result\":\"refused\",\"reason\":\(VerificationRequestBody.jsonString(reason.rawValue))}".utf8)
        case .unavailable: return Array("{\"result\":\"error\"}".utf8)
        }
    }

    /// The outcome, or an error naming what is wrong (the door treats it as no answer).
    public static func decode(_ body: [UInt8]) throws -> EnrolmentOutcome {
        typealias Invalid = VerificationResponseBody.Invalid
        let fields: StrictJSON.Fields
        let result: String
        switch StrictJSON.parse(body) {
        case .failure(let problem): throw Invalid(description: "response is ambiguous or malformed JSON: \(problem)")
        case .success(let value):
            guard let object = StrictJSON.Fields(value), let named = object.string("result"),
                !object.has("reason") || object.string("reason") != nil, !object.has("user") || object.string("user") != nil
            else { throw Invalid(description: "response is not the enrolment JSON") }
            (fields, result) = (object, named)
        }
        switch result {
        case "pin_set":
            if let user = fields.string("user"), !Identifier.isValid(user) {
                throw Invalid(description: "user must be 1-64 of letters, digits, '.', '_' or '-'")
            }
            return .pinSet(user: fields.string("user"))
        case "refused":
            guard let reason = fields.string("reason").flatMap(EnrolmentRefusal.init(rawValue:)) else {
                throw Invalid(description: "reason must be one of \(EnrolmentRefusal.allCases.map(\.rawValue).sorted().joined(separator: ", "))")
            }
            return .refused(reason)
        default:
            throw Invalid(description: "unknown result (want pin_set or refused)")
        }
    }
}
