/// Whether digits are secret (masked PIN) or shown (one-time/verification code).
public enum EntryMode: String, Sendable, CaseIterable, Codable {
    case pin
    case code
}

/// Whether a locally generated challenge code must be typed back before the PIN.
public enum ChallengeStep: String, Sendable, CaseIterable {
    case none
    case beforePIN = "before_pin"
}

/// Everything that shapes one terminal's digit entry; validated by the config loader.
public struct EntryOptions: Equatable, Sendable {
    /// The range `min_length` and `max_length` must lie in.
    public static let lengthRange = 4...12

    public var mode: EntryMode
    public var minLength: Int
    public var maxLength: Int
    public var endKeyRequired: Bool
    public var bindings: KeyBindings
    public var inactivityTimeout: Duration
    public var resultDuration: Duration
    public var challenge: ChallengeStep
    public var challengeLength: Int
    public var challengeAlphabet: [Character]
    public var lockout: LockoutPolicy
    /// Whether an end key on an empty entry starts choosing a PIN with an enrolment code
    /// (`entry.enrolment`).
    public var enrolment: Bool

    public init(
        mode: EntryMode = .pin,
        minLength: Int = 4,
        maxLength: Int = 4,
        endKeyRequired: Bool = false,
        bindings: KeyBindings = KeyBindings(),
        inactivityTimeout: Duration = .seconds(10),
        resultDuration: Duration = .seconds(3),
        challenge: ChallengeStep = .none,
        challengeLength: Int = 4,
        challengeAlphabet: [Character] = Array("0123456789"),
        lockout: LockoutPolicy = LockoutPolicy(),
        enrolment: Bool = false
    ) {
        self.enrolment = enrolment
        self.mode = mode
        self.minLength = minLength
        self.maxLength = maxLength
        self.endKeyRequired = endKeyRequired
        self.bindings = bindings
        self.inactivityTimeout = inactivityTimeout
        self.resultDuration = resultDuration
        self.challenge = challenge
        self.challengeLength = challengeLength
        self.challengeAlphabet = challengeAlphabet
        self.lockout = lockout
    }
}
