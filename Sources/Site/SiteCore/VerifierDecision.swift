import KioskPadCore

/// What the reference verifier decided about one request. The decision logic knows no
/// HTTP: `SiteHTTP` maps each case to a status and a body (docs/openapi.yaml:
/// 200 answer, 400 malformed, 401 unsigned, 409 replayed, 429, 503).
public enum VerifierDecision: Sendable, Equatable {
    /// An answer for the terminal: granted (with the unlock time, if configured, and the
    /// user, and `duress` when the user typed their duress PIN) or denied.
    case answer(granted: Bool, message: String?, unlockSeconds: Int?, user: String?, duress: Bool)
    /// Denied because the terminal is locked out: on the wire a `denied` whose message is
    /// ``lockedOutMessage``; in the metrics `locked_out`.
    case lockedOut
    /// Denied at a card-and-PIN door: a card alone, a PIN alone or a code was offered. The
    /// answer says so (`reason: second_factor_required`), so after a card the door asks for
    /// its holder's PIN. Decided from the door's rule alone, before any hash: it tells
    /// nothing about the card.
    case secondFactorRequired
    /// The door was armed to learn a card and the card just read, which matched nobody, is
    /// now the armed user's: a denial whose `reason` is `card_enrolled`, so the door shows
    /// `Card learned` (and stays shut).
    case cardEnrolled
    /// The answer to a PIN chosen at the door (`POST /v1/enrol`).
    case enrolment(EnrolmentOutcome)
    /// The request was refused before any attempt was decided; `reason` says why.
    case refused(Refusal, reason: String)
    /// This source sent too many refused requests in the current interval.
    case throttled
    /// The verifier could not decide (a state file failed): never a grant.
    case unavailable
    /// The same attempt of the same door sent again within the replay window (a retry whose
    /// first answer was lost): answered as it was decided then (``KeptAnswer``), nothing
    /// decided again; counted in the metrics as `repeated`.
    indirect case repeated(VerifierDecision)

    /// Why a request was refused.
    public enum Refusal: String, Sendable, CaseIterable, Comparable {
        /// Not JSON, too large, not the verification body, or a bad webhook-id.
        case malformed
        /// Signature missing, wrong, or its timestamp too far off.
        case unauthenticated
        /// A webhook-id that was already used.
        case replayed

        public static func < (lhs: Refusal, rhs: Refusal) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// The message a locked-out terminal's answer carries.
    public static let lockedOutMessage = "Locked out"

    public static func granted(unlockSeconds: Int? = nil, user: String? = nil, duress: Bool = false) -> VerifierDecision {
        .answer(granted: true, message: nil, unlockSeconds: unlockSeconds, user: user, duress: duress)
    }

    public static func denied(_ message: String? = nil) -> VerifierDecision {
        .answer(granted: false, message: message, unlockSeconds: nil, user: nil, duress: false)
    }
}
