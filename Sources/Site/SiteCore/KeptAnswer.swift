import Crypto
import Foundation
import KioskPadCore

/// The answer a decided attempt (`/verify`) or PIN enrolment (`/v1/enrol`) got, kept with
/// its request's `webhook-id` in the replay cache for the replay window. A door that never received it (the answer came after its deadline,
/// or the connection broke) sends the same request again, often to another instance; that
/// retry is answered the same instead of refused as a replay, so a one-time code or visitor
/// pass the first try used is not used up without the door opening. Nothing is decided
/// twice. It holds no PIN or code: the terminal, the attempt's id, the answer and a digest of
/// the request it answered (``requestDigest(_:)``): only a request identical to that one, byte
/// for byte in its signature, timestamp and body, gets it again; the same `webhook-id` and
/// `attempt_id` with another body (another PIN) is refused as a replay.
public struct KeptAnswer: Sendable, Equatable {
    /// As the store keeps it (JSON).
    public let encoded: String

    public init(encoded: String) {
        self.encoded = encoded
    }

    /// Nil for a decision that is not an attempt's answer (a refusal, unavailable).
    public init?(_ decision: VerifierDecision, terminal: String, attemptID: String, request: ReferenceVerifier.Incoming) {
        var kept = Kept(terminal: terminal, attemptID: attemptID, kind: .answer, requestDigest: KeptAnswer.requestDigest(request))
        switch decision {
        case .answer(let granted, let message, let unlockSeconds, let user, let duress):
            (kept.granted, kept.message, kept.unlockSeconds, kept.user, kept.duress) = (granted, message, unlockSeconds, user, duress)
        case .lockedOut: kept.kind = .lockedOut
        case .secondFactorRequired: kept.kind = .secondFactorRequired
        case .cardEnrolled: kept.kind = .cardEnrolled
        case .enrolment(.pinSet(let user)): (kept.kind, kept.user) = (.pinSet, user)
        case .enrolment(.refused(let reason)): (kept.kind, kept.reason) = (.enrolmentRefused, reason.rawValue)
        case .enrolment(.unavailable), .refused, .throttled, .unavailable, .repeated: return nil
        }
        guard let data = try? JSONEncoder().encode(kept) else { return nil }
        encoded = String(decoding: data, as: UTF8.self)
    }

    /// The kept decision when it was kept for `attemptID` of `terminal` in answer to a request
    /// identical to `request`; nil otherwise (then the request is refused as a replay, as
    /// before answers were kept). An answer kept without a digest (before this release) is
    /// given to no request.
    public func decision(terminal: String, attemptID: String, request: ReferenceVerifier.Incoming) -> VerifierDecision? {
        guard let kept = try? JSONDecoder().decode(Kept.self, from: Data(encoded.utf8)),
            kept.terminal == terminal, kept.attemptID == attemptID, let digest = kept.requestDigest,
            ConstantTime.equal(Array(digest.utf8), Array(KeptAnswer.requestDigest(request).utf8))
        else { return nil }
        switch kept.kind {
        case .answer:
            guard let granted = kept.granted else { return nil }
            return .answer(granted: granted, message: kept.message, unlockSeconds: kept.unlockSeconds, user: kept.user, duress: kept.duress ?? false)
        case .lockedOut: return .lockedOut
        case .secondFactorRequired: return .secondFactorRequired
        case .cardEnrolled: return .cardEnrolled
        case .pinSet: return .enrolment(.pinSet(user: kept.user))
        case .enrolmentRefused: return kept.reason.flatMap(EnrolmentRefusal.init(rawValue:)).map { .enrolment(.refused($0)) }
        }
    }

    private struct Kept: Codable {
        enum Kind: String, Codable {
            case answer
            case lockedOut = "locked_out"
            case secondFactorRequired = "second_factor_required"
            case cardEnrolled = "card_enrolled"
            case pinSet = "pin_set"
            case enrolmentRefused = "enrolment_refused"
        }
        var terminal: String
        var attemptID: String
        var kind: Kind
        var granted: Bool?
        var message: String?
        var unlockSeconds: Int?
        var user: String?
        var duress: Bool?
        var reason: String?
        var requestDigest: String?

        init(terminal: String, attemptID: String, kind: Kind, requestDigest: String) {
            (self.terminal, self.attemptID, self.kind, self.requestDigest) = (terminal, attemptID, kind, requestDigest)
        }

        enum CodingKeys: String, CodingKey {
            case terminal, kind, granted, message, user, duress, reason
            case attemptID = "attempt_id"
            case requestDigest = "request_digest"
            case unlockSeconds = "unlock_seconds"
        }
    }

    /// SHA-256 of what a door's request signed and carried: its `webhook-signature` and
    /// `webhook-timestamp` headers and its body, separated by NUL bytes. The signature is an
    /// HMAC under the door's secret, so the digest lets nobody who reads the store test a guess
    /// at the PIN in the body.
    public static func requestDigest(_ request: ReferenceVerifier.Incoming) -> String {
        var hash = SHA256()
        hash.update(data: Array((request.webhookSignature ?? "").utf8) + [0])
        hash.update(data: Array((request.webhookTimestamp ?? "").utf8) + [0])
        hash.update(data: request.body)
        return LowercaseHex.string(hash.finalize())
    }
}
