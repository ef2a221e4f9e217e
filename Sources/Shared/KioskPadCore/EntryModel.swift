/// The digit-entry state machine of one terminal: pure logic, no I/O, time only from the
/// injected ``EntryClock``. Feed it keys with ``handle(_:)``, verifier answers with
/// ``complete(attempt:outcome:)`` and the passage of time with ``tick()``; render
/// ``snapshot()``. Not thread-safe: one owner (the controller) drives it.
public final class EntryModel {
    /// Spinner frame length while verifying.
    public static let spinnerInterval: Duration = .milliseconds(150)
    /// Offsets of the slot row while a rejected challenge shakes, one per frame.
    public static let shakeOffsets = [-1, 1, -1, 1]
    public static let shakeInterval: Duration = .milliseconds(80)

    public let options: EntryOptions
    private let clock: any EntryClock
    private let randomness: any ChallengeRandomness
    private let digits: DigitBuffer
    private let challengeTyped: DigitBuffer
    private var lockout: LockoutTracker

    public private(set) var phase: EntryPhase = .ready
    private var challengeCode: ChallengeCode?
    private var challengePassed = false
    /// A start key was pressed for this entry (only matters when `start_keys` is set).
    private var started = false
    private var lastActivity: Duration
    private var phaseStarted: Duration
    private var shakeStarted: Duration?
    private var resultMessage: String?
    private var attemptCounter: UInt64 = 0
    private var pendingAttempt: UInt64?
    /// How many digits the attempt being verified had (its slots stay filled, masked).
    private var submittedCount = 0
    /// The card of the attempt being verified, kept in case the door asks for its PIN.
    private var pendingCard: SecretDigits?
    /// A card the door asked the PIN for: sent with the PIN typed next, dropped (its last
    /// reference, so its bytes are wiped) on cancel, timeout, help or another entry.
    private var heldCard: SecretDigits?
    /// Choosing a PIN at the door (``EntryOptions/enrolment``): the step, the code typed (up
    /// to 12 digits, in its own buffer), the code once submitted, the first new PIN, and
    /// what to say in place of the prompt. All wiped by ``restart(at:)``.
    private var enrolment: EnrolmentStep?
    private let codeDigits = DigitBuffer(capacity: EntryOptions.lengthRange.upperBound)
    private var enrolmentCode: SecretDigits?
    private var firstPIN: SecretDigits?
    private var enrolmentNotice: EnrolmentNotice?
    private var enrolmentOutcome: EnrolmentOutcome?
    /// The last result was a card learned by the site, not a denial.
    private var cardLearned = false

    public init(
        options: EntryOptions, clock: any EntryClock,
        randomness: any ChallengeRandomness = SystemChallengeRandomness()
    ) {
        self.options = options
        self.clock = clock
        self.randomness = randomness
        digits = DigitBuffer(capacity: options.maxLength)
        challengeTyped = DigitBuffer(capacity: max(options.challengeLength, 1))
        lockout = LockoutTracker(policy: options.lockout)
        lastActivity = clock.now
        phaseStarted = lastActivity
        restart(at: lastActivity)
    }

    // MARK: Inputs

    /// Applies one key. Returns the submission when this key completes an attempt
    /// (exactly once per attempt); otherwise nil.
    @discardableResult
    public func handle(_ input: KeyInput) -> Submission? {
        let now = clock.now
        expire(at: now)
        guard let action = options.bindings.action(for: input) else { return nil }
        switch phase {
        case .verifying, .lockedOut:
            return nil
        case .result, .help:
            restart(at: now)
            // A digit (or a start key) both dismisses the result and starts the next entry.
            switch action {
            case .digit, .start: break
            default: return nil
            }
        case .challenge, .ready, .entering:
            break
        }
        if action == .start {
            started = true
            lastActivity = now
            if phase == .ready { phase = .entering }
            return nil
        }
        if case .digit = action, !options.bindings.startKeys.isEmpty, !started {
            return nil  // with start keys, digits before one are not typed
        }
        if phase == .challenge {
            handleChallenge(action, at: now)
            return nil
        }
        return handleEntry(action, at: now)
    }

    /// A card was presented (a Wiegand reader's card number): it is submitted at once as an
    /// attempt of kind `card` when the terminal is ready, mid-entry (the typed digits are
    /// wiped) or showing a result or help; it is ignored (nil) while verifying, while locked
    /// out (a denied card counts towards the lockout like a PIN) and before a challenge has
    /// been typed back. When the verifier answers that the door asks for a card and a PIN
    /// (`second_factor_required`), the model holds the card and asks for the PIN in the
    /// slots; the next submit sends both as one `card_pin` attempt.
    @discardableResult
    public func present(card value: SecretDigits) -> Submission? {
        let submission = present(value, kind: .card)
        if submission != nil { pendingCard = value }
        return submission
    }

    /// A PIN that came from elsewhere than the keys (Home Assistant's remote unlock with a
    /// code): submitted as a `pin` attempt exactly when a card would be, and counted
    /// towards the lockout like a typed PIN.
    @discardableResult
    public func present(remote value: SecretDigits) -> Submission? {
        present(value, kind: .pin)
    }

    private func present(_ value: SecretDigits, kind: AttemptKind) -> Submission? {
        let now = clock.now
        expire(at: now)
        switch phase {
        case .verifying, .lockedOut, .challenge:
            return nil
        case .result, .help:
            restart(at: now)
            if phase == .challenge { return nil }
        case .ready, .entering:
            break
        }
        digits.wipe()
        heldCard = nil
        lastActivity = now
        beginVerifying(at: now, slotsShown: 0)
        return Submission(attempt: attemptCounter, kind: kind, value: value)
    }

    /// Records the site's answer to a PIN chosen at the door (an attempt of kind `enrol`).
    /// A code that matched nothing counts toward the lockout like a wrong PIN; a refused
    /// PIN does not. Stale or repeated answers are ignored (returns false).
    @discardableResult
    public func completeEnrolment(attempt: UInt64, outcome: EnrolmentOutcome) -> Bool {
        guard phase == .verifying, pendingAttempt == attempt else { return false }
        let now = clock.now
        pendingAttempt = nil
        phaseStarted = now
        resultMessage = nil
        enrolmentOutcome = outcome
        switch outcome {
        case .pinSet:
            phase = .result(.granted)
        case .refused(let reason):
            phase = reason == .invalidCode && lockout.recordDenial(at: now) != nil ? .lockedOut : .result(.denied)
        case .unavailable:
            phase = .result(.unavailable)
        }
        return true
    }

    /// Records the verifier's answer for `attempt`. Stale or repeated answers are ignored
    /// (returns false).
    @discardableResult
    public func complete(attempt: UInt64, outcome: AttemptOutcome) -> Bool {
        guard phase == .verifying, pendingAttempt == attempt else { return false }
        let now = clock.now
        pendingAttempt = nil
        phaseStarted = now
        let card = pendingCard
        pendingCard = nil
        switch outcome {
        case .granted(let message, _, _, _):
            lockout.recordGrant()
            resultMessage = message
            phase = .result(.granted)
        case .denied(_, .secondFactorRequired?) where card != nil:
            // Not a denial: the door wants this card's PIN next. Nothing was guessed.
            heldCard = card
            started = true
            lastActivity = now
            phase = .entering
        case .denied(let message, .secondFactorRequired?):
            // A PIN or code alone at a card-and-PIN door: denied, but no guess was checked.
            resultMessage = message
            phase = .result(.denied)
        case .denied(_, .cardEnrolled?):
            // The site learned this card for a user: shut, and no guess was made.
            cardLearned = true
            resultMessage = nil
            phase = .result(.denied)
        case .denied(let message, _):
            resultMessage = message
            phase = lockout.recordDenial(at: now) == nil ? .result(.denied) : .lockedOut
        case .unavailable:
            resultMessage = nil
            phase = .result(.unavailable)
        }
        return true
    }

    /// Applies timeouts and expiries that are due at the clock's current time.
    public func tick() {
        expire(at: clock.now)
    }

    /// Whether a card is held while its PIN is asked for.
    public var holdsCard: Bool { heldCard != nil }

    // MARK: Outputs

    /// When the model next changes by itself (timeout, result end, countdown step,
    /// spinner or shake frame); nil when it waits only for keys.
    public var nextDeadline: Duration? {
        let now = clock.now
        var candidates: [Duration] = []
        switch phase {
        case .entering:
            candidates.append(lastActivity + options.inactivityTimeout)
        case .ready where challengePassed || heldCard != nil || enrolment != nil:
            candidates.append(lastActivity + options.inactivityTimeout)
        case .challenge where !challengeTyped.isEmpty:
            candidates.append(lastActivity + options.inactivityTimeout)
        case .result, .help:
            candidates.append(phaseStarted + options.resultDuration)
        case .verifying:
            let step = spinnerStep(at: now)
            candidates.append(phaseStarted + EntryModel.spinnerInterval * (step + 1))
        case .lockedOut:
            if let until = lockout.lockedUntil {
                let shown = (until - now).roundedUpSeconds
                candidates.append(until - .seconds(max(shown - 1, 0)))
            }
        default:
            break
        }
        if let started = shakeStarted {
            let frame = Int((now - started) / EntryModel.shakeInterval)
            candidates.append(started + EntryModel.shakeInterval * (frame + 1))
        }
        return candidates.min()
    }

    /// What a display may show right now.
    public func snapshot() -> EntrySnapshot {
        let now = clock.now
        var snapshot = EntrySnapshot(phase: phase, mode: options.mode, slotCount: options.maxLength)
        snapshot.cardHeld = heldCard != nil
        snapshot.enrolment = enrolment
        snapshot.enrolmentNotice = enrolmentNotice
        switch phase {
        case .challenge:
            snapshot.slotCount = options.challengeLength
            snapshot.filledCount = challengeTyped.count
            snapshot.visibleDigits = (0..<challengeTyped.count).map(challengeTyped.digit(at:))
            snapshot.challengeCode = challengeCode?.text
        case .ready where enrolment == .code, .entering where enrolment == .code:
            snapshot.slotCount = max(codeDigits.count, options.maxLength)
            snapshot.filledCount = codeDigits.count
        case .ready, .entering:
            snapshot.filledCount = digits.count
            if options.mode == .code && heldCard == nil && enrolment == nil {
                snapshot.visibleDigits = (0..<digits.count).map(digits.digit(at:))
            }
        case .verifying:
            snapshot.spinnerStep = spinnerStep(at: now)
            snapshot.filledCount = submittedCount
        case .result:
            snapshot.message = resultMessage
            snapshot.enrolmentOutcome = enrolmentOutcome
            snapshot.cardLearned = cardLearned
        case .lockedOut:
            snapshot.lockSecondsRemaining = ((lockout.lockedUntil ?? now) - now).roundedUpSeconds
        case .help:
            break
        }
        if let started = shakeStarted {
            let frame = Int((now - started) / EntryModel.shakeInterval)
            snapshot.shakeOffset = frame < EntryModel.shakeOffsets.count ? EntryModel.shakeOffsets[frame] : 0
        }
        return snapshot
    }

    /// True when the entry buffer (and the enrolment code's) holds no digit and every byte of it is zero.
    public var entryBufferIsWiped: Bool { digits.isEmpty && digits.isZeroed && codeDigits.isEmpty && codeDigits.isZeroed }

    /// The step of choosing a PIN at the door, nil when none is under way.
    public var enrolmentStep: EnrolmentStep? { enrolment }

    /// Denials so far that count towards the next lockout.
    public var recentFailures: Int { lockout.recentFailures }

    // MARK: Transitions

    private func handleEntry(_ action: KeyAction, at now: Duration) -> Submission? {
        lastActivity = now
        if enrolment == .code { return handleEnrolmentCode(action, at: now) }
        if case .submit = action, options.enrolment, enrolment == nil, heldCard == nil, digits.isEmpty {
            // An end key on an empty entry: choose a PIN with an enrolment code.
            enrolment = .code
            started = true
            phase = .entering
            return nil
        }
        switch action {
        case .digit(let digit):
            guard digits.append(digit) else { return nil }
            phase = .entering
            if digits.count == options.maxLength && !options.endKeyRequired {
                return submit(at: now)
            }
        case .back:
            digits.removeLast()
            if digits.isEmpty { phase = started ? .entering : .ready }
        case .clear:
            digits.wipe()
            phase = started ? .entering : .ready
        case .submit:
            if digits.count >= options.minLength { return submit(at: now) }
        case .cancel:
            restart(at: now)
        case .help:
            showHelp(at: now)
        case .start:
            break
        }
        return nil
    }

    /// Typing the enrolment code: up to 12 digits, submitted with an end key (4 at least).
    private func handleEnrolmentCode(_ action: KeyAction, at now: Duration) -> Submission? {
        switch action {
        case .digit(let digit):
            codeDigits.append(digit)
        case .back where codeDigits.isEmpty:
            restart(at: now)  // back on nothing: out of choosing a PIN
        case .back:
            codeDigits.removeLast()
        case .clear:
            codeDigits.wipe()
        case .submit:
            guard codeDigits.count >= EntryOptions.lengthRange.lowerBound else { return nil }
            enrolmentCode = codeDigits.take()
            enrolment = .newPIN
        case .cancel:
            restart(at: now)
        case .help:
            showHelp(at: now)
        case .start:
            break
        }
        return nil
    }

    /// A new PIN entered while choosing one: a weak one is refused here (say why, type
    /// another); the first is kept for the repeat; a repeat that differs starts the new PIN
    /// again; one that matches is submitted with the code, as kind `enrol`.
    private func enrolmentPIN(at now: Duration) -> Submission? {
        let typed = digits.take()
        if enrolment == .newPIN {
            if let weak = WeakPIN.problem(typed) {
                enrolmentNotice = .weak(weak)
                return nil
            }
            firstPIN = typed
            enrolment = .repeatPIN
            enrolmentNotice = nil
            return nil
        }
        guard let first = firstPIN, let code = enrolmentCode, first.hasSameDigits(as: typed) else {
            firstPIN = nil
            enrolment = .newPIN
            enrolmentNotice = .pinsDiffer
            return nil
        }
        beginVerifying(at: now, slotsShown: typed.count)
        clearEnrolment()
        return Submission(attempt: attemptCounter, kind: .enrol, value: code, pin: first)
    }

    /// Drops every part of a PIN being chosen (the code's buffer wiped, the rest released).
    private func clearEnrolment() {
        enrolment = nil
        codeDigits.wipe()
        enrolmentCode = nil
        firstPIN = nil
        enrolmentNotice = nil
    }

    private func handleChallenge(_ action: KeyAction, at now: Duration) {
        lastActivity = now
        switch action {
        case .digit(let digit):
            guard challengeTyped.append(digit), challengeTyped.isFull else { return }
            let expected = challengeCode?.characters.compactMap(\.wholeNumberValue) ?? []
            let typed = (0..<challengeTyped.count).map { Int(challengeTyped.digit(at: $0)) }
            challengeTyped.wipe()
            if typed == expected {
                challengePassed = true
                challengeCode = nil
                phase = .ready
            } else {
                shakeStarted = now
                drawChallenge()
            }
        case .back:
            challengeTyped.removeLast()
        case .clear:
            challengeTyped.wipe()
        case .submit:
            break
        case .cancel:
            restart(at: now)
        case .help:
            showHelp(at: now)
        case .start:
            break
        }
    }

    private func submit(at now: Duration) -> Submission? {
        if enrolment != nil { return enrolmentPIN(at: now) }
        beginVerifying(at: now, slotsShown: digits.count)
        if let card = heldCard {
            heldCard = nil
            return Submission(attempt: attemptCounter, kind: .cardPIN, value: card, pin: digits.take())
        }
        return Submission(attempt: attemptCounter, kind: AttemptKind(options.mode), value: digits.take())
    }

    /// The next attempt number, now pending; the phase is verifying.
    private func beginVerifying(at now: Duration, slotsShown: Int) {
        attemptCounter += 1
        pendingAttempt = attemptCounter
        phase = .verifying
        phaseStarted = now
        challengePassed = false
        submittedCount = slotsShown
    }

    private func showHelp(at now: Duration) {
        digits.wipe()
        heldCard = nil
        clearEnrolment()
        challengeTyped.wipe()
        phase = .help
        phaseStarted = now
    }

    /// Back to the first screen: wipes everything typed, draws a fresh challenge if needed.
    private func restart(at now: Duration) {
        started = false
        heldCard = nil
        clearEnrolment()
        enrolmentOutcome = nil
        cardLearned = false
        digits.wipe()
        challengeTyped.wipe()
        resultMessage = nil
        challengePassed = false
        lastActivity = now
        phaseStarted = now
        if options.challenge == .beforePIN {
            drawChallenge()
            phase = .challenge
        } else {
            phase = .ready
        }
    }

    private func drawChallenge() {
        challengeCode = ChallengeCode.draw(
            length: options.challengeLength, alphabet: options.challengeAlphabet, using: randomness)
    }

    private func expire(at now: Duration) {
        if let started = shakeStarted,
            now - started >= EntryModel.shakeInterval * EntryModel.shakeOffsets.count
        {
            shakeStarted = nil
        }
        let idle = now - lastActivity >= options.inactivityTimeout
        switch phase {
        case .entering where idle, .ready where (challengePassed || heldCard != nil || enrolment != nil) && idle:
            restart(at: now)
        case .challenge where idle && !challengeTyped.isEmpty:
            restart(at: now)
        case .result, .help:
            if now - phaseStarted >= options.resultDuration { restart(at: now) }
        case .lockedOut:
            if !lockout.isLocked(at: now) { restart(at: now) }
        default:
            break
        }
    }

    private func spinnerStep(at now: Duration) -> Int {
        Int((now - phaseStarted) / EntryModel.spinnerInterval)
    }
}
