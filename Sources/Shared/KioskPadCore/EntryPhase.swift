/// Which result screen is showing.
public enum ResultKind: Equatable, Sendable {
    case granted
    case denied
    case unavailable
}

/// Where the entry model is: ready -> entering -> verifying -> result -> ready, plus
/// the challenge step before the PIN, a lockout, and the help screen.
public enum EntryPhase: Equatable, Sendable {
    /// A challenge code is on screen and must be typed back.
    case challenge
    /// Waiting for the first digit.
    case ready
    /// At least one digit typed.
    case entering
    /// Submitted; keys are ignored until the verifier answers.
    case verifying
    /// Showing the verifier's answer for the configured time.
    case result(ResultKind)
    /// Too many denials; keys are ignored until the countdown ends.
    case lockedOut
    /// Showing the "forgot PIN" help text.
    case help
}

/// Everything a frame composer may know about the entry. In PIN mode it carries how many
/// slots are filled, never which digits: a composer cannot leak what it is not given.
public struct EntrySnapshot: Equatable, Sendable {
    public var phase: EntryPhase
    public var mode: EntryMode
    /// Number of slots on the slot row (max length, or challenge length).
    public var slotCount: Int
    /// Number of filled slots.
    public var filledCount: Int
    /// Digits that may be shown in clear: the typed-back challenge, or code-mode entry.
    /// Always empty for a PIN.
    public var visibleDigits: [UInt8]
    /// The challenge code to type back, while in ``EntryPhase/challenge``.
    public var challengeCode: String?
    /// Horizontal offset of the slot row while a rejected challenge shakes (-1, 0, +1).
    public var shakeOffset: Int
    /// Spinner animation step while verifying.
    public var spinnerStep: Int
    /// Whole seconds left while locked out (rounded up).
    public var lockSecondsRemaining: Int
    /// Text from the verifier to show on a result screen.
    public var message: String?
    /// A card was read and its PIN is asked for (the slots are masked in either mode).
    public var cardHeld = false
    /// Choosing a PIN at the door: the step, and what to say in place of its prompt.
    public var enrolment: EnrolmentStep?
    public var enrolmentNotice: EnrolmentNotice?
    /// On a result screen after choosing a PIN: the site's answer.
    public var enrolmentOutcome: EnrolmentOutcome?
    /// The result shown is the site learning the card just read (``DenialReason/cardEnrolled``).
    public var cardLearned = false

    public init(
        phase: EntryPhase, mode: EntryMode, slotCount: Int, filledCount: Int = 0,
        visibleDigits: [UInt8] = [], challengeCode: String? = nil, shakeOffset: Int = 0,
        spinnerStep: Int = 0, lockSecondsRemaining: Int = 0, message: String? = nil
    ) {
        self.phase = phase
        self.mode = mode
        self.slotCount = slotCount
        self.filledCount = filledCount
        self.visibleDigits = visibleDigits
        self.challengeCode = challengeCode
        self.shakeOffset = shakeOffset
        self.spinnerStep = spinnerStep
        self.lockSecondsRemaining = lockSecondsRemaining
        self.message = message
    }
}
