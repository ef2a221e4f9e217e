import Foundation
import HTTPTypes
import KioskPadAccess
import SiteCore

/// A ``VerifierDecision`` as the HTTP answer docs/openapi.yaml gives it: 200 with the
/// response JSON for an answer; 400, 401 or 409 with `{"error": reason}` for a refused
/// request; 429 when throttled; 503 when the verifier cannot decide.
public struct HTTPReply: Sendable, Equatable {
    public let status: Int
    public let body: [UInt8]

    public init(_ decision: VerifierDecision) {
        switch decision {
        case .answer(let granted, let message, let unlockSeconds, let user, let duress):
            status = 200
            body = VerificationResponseBody.encode(
                granted: granted, message: message, unlockSeconds: unlockSeconds, user: user, duress: duress)
        case .lockedOut:
            status = 200
            body = VerificationResponseBody.encode(granted: false, message: VerifierDecision.lockedOutMessage)
        case .enrolment(let outcome):
            status = 200
            body = EnrolmentResponseBody.encode(outcome)
        case .secondFactorRequired:
            status = 200
            body = VerificationResponseBody.encode(granted: false, reason: .secondFactorRequired)
        case .cardEnrolled:
            status = 200
            body = VerificationResponseBody.encode(granted: false, reason: .cardEnrolled)
        case .refused(let refusal, let reason):
            switch refusal {
            case .malformed: status = 400
            case .unauthenticated: status = 401
            case .replayed: status = 409
            }
            body = Array("{\"error\":\(VerificationRequestBody.jsonString(reason))}".utf8)
        case .throttled:
            status = 429
            body = Array("{\"error\":\"too many rejected requests; try again later\"}".utf8)
        case .unavailable:
            status = 503
            body = Array("{\"error\":\"verifier unavailable\"}".utf8)
        case .repeated(let original):
            self = HTTPReply(original)
        }
    }
}

extension HTTPReply {
    /// A door endpoint's ``DoorRequestOutcome`` as its HTTP answer: 200 with the JSON; 400,
    /// 401 or 409 with `{"error": reason}`; 429 over the door's quota; 503 later.
    public init(_ outcome: DoorRequestOutcome) {
        switch outcome {
        case .done(let json):
            self.init(status: 200, body: json)
        case .refused(let refusal, let reason):
            self.init(VerifierDecision.refused(refusal, reason: reason))
        case .overQuota(let door, let limit, let retryAfter):
            self.init(status: 429, body: Array("{\"error\":\"door \(door) is over its event quota (\(limit)); retry after \(retryAfter) s\"}".utf8))
        case .unavailable:
            self.init(status: 503, body: Array("{\"error\":\"the database cannot be used now\"}".utf8))
        case .retired(let reason, let statement):
            let object: [String: Any] = ["error": reason, "retirement": statement]
            self.init(status: 401, body: (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])).map(Array.init) ?? [])
        }
    }

    init(status: Int, body: [UInt8]) {
        self.status = status
        self.body = body
    }
}

/// The Standard Webhooks headers, parsed once. The names are valid tokens, so these are
/// never nil; a request's header is read with ``value(_:in:)``, without a force unwrap.
enum WebhookHeader {
    static let id = HTTPField.Name("webhook-id")
    static let timestamp = HTTPField.Name("webhook-timestamp")
    static let signature = HTTPField.Name("webhook-signature")
    /// The door a request comes from (``ClaimedTerminal``).
    static let terminal = HTTPField.Name(ClaimedTerminal.header)
    /// How long the door waits for this answer (``AnswerWait``).
    static let wait = HTTPField.Name(AnswerWait.header)

    static func value(_ name: HTTPField.Name?, in fields: HTTPFields) -> String? {
        name.flatMap { fields[$0] }
    }
}
