/// Why a PIN chosen at the door is too easy to guess: one digit throughout (`1111`), or a
/// run up or down (`1234`, `9876`, and wrapping past 9: `8901`).
public enum WeakPIN: String, Sendable, Equatable, CaseIterable {
    case sameDigit = "same_digit"
    case sequence

    /// The first reason `pin` is too easy; nil when it is not.
    public static func problem(_ pin: SecretDigits) -> WeakPIN? {
        pin.withASCIIBytes { bytes -> WeakPIN? in
            guard bytes.count > 1 else { return nil }
            let steps = zip(bytes.dropFirst(), bytes).map { (Int($0) - Int($1) + 10) % 10 }
            if steps.allSatisfy({ $0 == 0 }) { return .sameDigit }
            if steps.allSatisfy({ $0 == 1 }) || steps.allSatisfy({ $0 == 9 }) { return .sequence }
            return nil
        }
    }
}

/// The steps of choosing a PIN at the door (`entry.enrolment`): the enrolment code the site
/// issued, the new PIN, and the new PIN again.
public enum EnrolmentStep: Equatable, Sendable {
    case code
    case newPIN
    case repeatPIN
}

/// What the door says while a PIN is chosen, in place of the step's prompt: the PIN was too
/// easy, or the two entries differed.
public enum EnrolmentNotice: Equatable, Sendable {
    case weak(WeakPIN)
    case pinsDiffer
}

/// The site's answer to a PIN chosen at the door (`POST /v1/enrol`).
public enum EnrolmentOutcome: Equatable, Sendable {
    /// The PIN is set; `user` names whose (journaled, never shown).
    case pinSet(user: String?)
    /// Refused, and why (``EnrolmentRefusal``).
    case refused(EnrolmentRefusal)
    /// No usable answer: nothing was set.
    case unavailable

    /// The journal's `result`: `pin_set`, `refused` or `error`.
    public var result: String {
        switch self {
        case .pinSet: return "pin_set"
        case .refused: return "refused"
        case .unavailable: return "error"
        }
    }
}
