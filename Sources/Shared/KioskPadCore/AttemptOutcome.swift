/// A verifier's answer to one submitted attempt, as the entry model sees it.
public enum AttemptOutcome: Equatable, Sendable {
    /// Open the door; `message` is shown, `unlockSeconds` overrides the configured pulse,
    /// `user` (a valid ``Identifier``) names who entered, for the journal and the logs.
    /// `duress`: the PIN was the user's duress PIN: the door and the display behave exactly
    /// as for any grant, and a silent `duress` event goes out first.
    case granted(message: String? = nil, unlockSeconds: Int? = nil, user: String? = nil, duress: Bool = false)
    /// Wrong PIN or code, or a user's access rules refused it; counts towards lockout.
    /// `reason` (e.g. `outside_schedule`, from a local verifier) goes to the journal only,
    /// never to the display.
    case denied(message: String? = nil, reason: DenialReason? = nil)
    /// No usable answer (timeout, bad response, verifier down). Door stays shut;
    /// never counts as a wrong PIN.
    case unavailable

    /// Who was granted entry, when the verifier named them (nil for other outcomes).
    public var user: String? {
        if case .granted(_, _, let user, _) = self { return user }
        return nil
    }

    /// The journal's `decision`: `granted`, `denied`, or `error` (no usable answer).
    public var decision: Decision {
        switch self {
        case .granted: return .granted
        case .denied: return .denied
        case .unavailable: return .error
        }
    }

    /// Whether this answer to an attempt of `kind` asks for the card's PIN next: a card at a
    /// door that wants a card and a PIN (`second_factor_required`). Not a denial to signal:
    /// the door prompts for the PIN instead of buzzing.
    public func asksForPIN(after kind: AttemptKind) -> Bool {
        guard kind == .card, case .denied(_, .secondFactorRequired?) = self else { return false }
        return true
    }

    /// A grant made with a duress PIN (never shown; see ``granted(message:unlockSeconds:user:duress:)``).
    public var isDuress: Bool {
        if case .granted(_, _, _, true) = self { return true }
        return false
    }
}

/// The wire's `kind`: `pin` (masked entry), `code` (a one-time code, shown while typed),
/// `card` (a card number from a Wiegand or OSDP reader), or `card_pin` (a card, then its
/// holder's PIN, at a door that asks for both).
public enum AttemptKind: String, Sendable, CaseIterable, Codable {
    case pin
    case code
    case card
    case cardPIN = "card_pin"
    /// A PIN chosen at the door with an enrolment code (the code in `value`, the new PIN in
    /// `pin`): sent to `POST /v1/enrol`, never to `/verify`.
    case enrol

    /// The kind of an entry typed in `mode`.
    public init(_ mode: EntryMode) {
        self = mode == .pin ? .pin : .code
    }
}

/// A completed entry handed to the verifier: fires exactly once per attempt.
public struct Submission: Sendable {
    /// Increases by one per attempt; ``EntryModel/complete(attempt:outcome:)`` must quote it.
    public let attempt: UInt64
    public let kind: AttemptKind
    /// The digits, moved out of the entry buffer (which is zeroed at the same moment); for
    /// `card_pin`, the card.
    public let value: SecretDigits
    /// For `card_pin`: the PIN typed after the card (nil for every other kind).
    public let pin: SecretDigits?

    public init(attempt: UInt64, kind: AttemptKind, value: SecretDigits, pin: SecretDigits? = nil) {
        self.attempt = attempt
        self.kind = kind
        self.value = value
        self.pin = pin
    }
}
