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

    /// Held to the documented schema, as the verification body is; an error names the field.
    public static func decode(_ body: [UInt8]) throws -> Decoded {
        // swift-format-ignore: AlwaysUseLowerCamelCase
        // The wire's own names, decoded as they are.
        struct Wire: Decodable {
            let terminal_id: String
            let code: String
            let pin: String
            let attempt_id: String
            let entered_at: String
        }
        typealias Invalid = VerificationRequestBody.Invalid
        if let problem = DuplicateKeyCheck.firstProblem(in: body) {
            throw Invalid(description: "body is ambiguous or malformed JSON: \(problem)")
        }
        let fields = "terminal_id, code, pin, attempt_id, entered_at"
        guard let wire = try? JSONDecoder().decode(Wire.self, from: Data(body)) else {
            throw Invalid(description: "body is not the enrolment JSON (\(fields))")
        }
        if let keys = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any],
            let unknown = Set(keys.keys).subtracting(["terminal_id", "code", "pin", "attempt_id", "entered_at"]).sorted().first
        {
            throw Invalid(description: "unknown property \(unknown) (the body has \(fields))")
        }
        guard Identifier.isValid(wire.terminal_id) else { throw Invalid(description: "terminal_id must be 1-64 of letters, digits, '.', '_' or '-'") }
        guard EntryOptions.lengthRange.contains(wire.code.utf8.count), let code = SecretDigits(ascii: wire.code) else {
            throw Invalid(description: "code must be 4 to 12 digits")
        }
        guard EntryOptions.lengthRange.contains(wire.pin.utf8.count), let pin = SecretDigits(ascii: wire.pin) else {
            throw Invalid(description: "pin must be 4 to 12 digits")
        }
        guard UUID(uuidString: wire.attempt_id) != nil else { throw Invalid(description: "attempt_id must be a UUID") }
        guard UTCTimestamp.parse(wire.entered_at) != nil else {
            throw Invalid(description: "entered_at must be an RFC 3339 date-time such as 2026-11-20T10:00:00Z")
        }
        return Decoded(terminalID: wire.terminal_id, code: code, pin: pin, attemptID: wire.attempt_id)
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
        // swift-format-ignore: AlwaysUseLowerCamelCase
        struct Wire: Decodable {
            let result: String
            let reason: String?
            let user: String?
        }
        typealias Invalid = VerificationResponseBody.Invalid
        if let problem = DuplicateKeyCheck.firstProblem(in: body) {
            throw Invalid(description: "response is ambiguous or malformed JSON: \(problem)")
        }
        guard let wire = try? JSONDecoder().decode(Wire.self, from: Data(body)) else { throw Invalid(description: "response is not the enrolment JSON") }
        switch wire.result {
        case "pin_set":
            if let user = wire.user, !Identifier.isValid(user) { throw Invalid(description: "user must be 1-64 of letters, digits, '.', '_' or '-'") }
            return .pinSet(user: wire.user)
        case "refused":
            guard let reason = wire.reason.flatMap(EnrolmentRefusal.init(rawValue:)) else {
                throw Invalid(description: "reason must be one of \(EnrolmentRefusal.allCases.map(\.rawValue).sorted().joined(separator: ", "))")
            }
            return .refused(reason)
        default:
            throw Invalid(description: "unknown result (want pin_set or refused)")
        }
    }
}
