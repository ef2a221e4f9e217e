import Foundation
import KeypadDisplay
import KeypadHAL
import KioskPadAccess
import KioskPadCore
import Logging

/// Wires one terminal: keys from a ``KeySource`` drive the ``EntryModel``; each change is
/// composed into a frame for the ``DisplayDriver``; each completed entry goes to the
/// ``Verifier`` and its answer back to the model. One loop handles every event in order,
/// so the model has a single owner. A display error is logged and never stops the door.
/// What happens is published on the ``TerminalEventBus`` after the model has it (a key
/// reaches the model before any sink) and without waiting for any sink.
public actor KioskController {
    /// Why ``run()`` returned.
    public enum Ending: Equatable, Sendable {
        /// The user quit (Ctrl-C on the keyboard).
        case quit
        /// A scripted input ended and its last attempt's result was shown.
        case inputEnded
    }

    /// How long an attempt's result waits by default for the journal's record of it (its write
    /// and fsync) before it is shown anyway: a stalled card delays the result, never the loop
    /// for good.
    public static let defaultRecordWait: Duration = .seconds(2)

    private let recordWait: Duration
    private let model: EntryModel
    private var composer: FrameComposer
    private let display: any DisplayDriver
    private let verifier: any Verifier
    private let source: any KeySource
    private let terminalID: String
    private let clock: TerminalClock
    private let logger: Logger
    private let bus: TerminalEventBus

    private var continuation: AsyncStream<ControllerEvent>.Continuation?
    /// The key reader while ``run()`` runs, for the watchdog's probe.
    private var reader: KeySourceRun?
    private var timer: Task<Void, Never>?
    private var lastFrame: Frame?
    private var deferredKeys = KeyQueue()
    private var inputEnded = false
    private var displayFailing = false
    private var tampered = false
    /// The door's mode: lockdown and release show their text in place of the prompt.
    private var mode = DoorMode.normal
    private let tamperStopsEntry: Bool
    /// `display.backlight_timeout_s`; nil keeps the backlight on.
    private var backlight: BacklightTimer?

    public init(
        entry: EntryOptions, composer: FrameComposer, display: any DisplayDriver,
        verifier: any Verifier, source: any KeySource, terminalID: String,
        clock: TerminalClock = .continuous, logger: Logger = Logger(label: "kioskpad"),
        bus: TerminalEventBus = TerminalEventBus(), tamperStopsEntry: Bool = false,
        backlightTimeout: Duration? = nil, recordWait: Duration = KioskController.defaultRecordWait
    ) {
        self.recordWait = recordWait
        self.tamperStopsEntry = tamperStopsEntry
        backlight = backlightTimeout.map { BacklightTimer(timeout: $0, at: clock.now) }
        model = EntryModel(options: entry, clock: clock)
        self.composer = composer
        self.display = display
        self.verifier = verifier
        self.source = source
        self.terminalID = terminalID
        self.clock = clock
        self.logger = logger
        self.bus = bus
    }

    /// The case tamper switch changed: the display shows `texts.tamper` instead of the
    /// prompt while it is tripped, and with `tamper.stop_entry` keys are ignored.
    public func tamperChanged(_ active: Bool) {
        continuation?.yield(.tamper(active))
    }

    /// The door's mode changed: the display shows `texts.lockdown` or `texts.released` in
    /// place of the prompt (the tamper text wins); entry goes on (responders still enter).
    public func modeChanged(_ mode: DoorMode) {
        guard let continuation else {
            self.mode = mode  // before run(): its first frame shows it
            return
        }
        continuation.yield(.mode(mode))
    }

    /// Shows `texts` from the next frame on (SIGHUP reload); entry goes on undisturbed.
    public func replaceTexts(_ texts: DisplayTexts) {
        continuation?.yield(.texts(texts))
    }

    /// A remote unlock command's code (`mqtt.remote_unlock`): submitted exactly as a PIN
    /// typed at this door (same verifier, lockout and duress), or refused when the terminal
    /// is not ready for it (a ``TerminalEvent/remoteUnlockRefused(reason:)`` goes out on the
    /// bus); a submitted one's decision carries a remote ``DecisionProvenance``.
    public func remoteCode(_ value: SecretDigits) {
        guard let continuation else {
            bus.publish(.remoteUnlockRefused(reason: "busy"))
            return
        }
        continuation.yield(.remote(value))
    }

    /// What the watchdog's probe found (``heartbeat(within:)``).
    public enum Liveness: Equatable, Sendable {
        /// The entry loop handled the probe and the key reader went round its loop.
        case alive
        /// ``run()`` has not started (or has ended): nothing to prove yet.
        case notRunning
        /// The entry loop did not reach the probe: stuck drawing the display, or worse.
        case loopStuck
        /// The key reader did not go round its loop (a GPIO keypad's scan thread stuck in a call).
        case keypadStuck
    }

    /// Proves the door works, for the watchdog: the entry loop reaches an event sent to it,
    /// behind everything queued before it (so it is not stuck drawing the display or on an
    /// attempt), and the key reader goes round its loop, each within `limit`.
    public func heartbeat(within limit: Duration) async -> Liveness {
        guard let continuation, let reader else { return .notRunning }
        let answer = OneShotAnswer()
        continuation.yield(.probe(answer))
        guard await answer.wait(within: limit) else { return .loopStuck }
        guard await reader.probe(within: limit) else { return .keypadStuck }
        return .alive
    }

    /// Runs until the user quits or a scripted input has been played out.
    public func run() async -> Ending {
        let (events, continuation) = AsyncStream.makeStream(of: ControllerEvent.self)
        self.continuation = continuation
        // The source calls straight into this loop's queue from its reading thread or task.
        let reader = source.start(
            deliver: { continuation.yield(.input($0)) },
            finished: { _ in continuation.yield(.inputEnded) })
        self.reader = reader
        defer {
            self.reader = nil
            reader.stop()
            timer?.cancel()
            continuation.finish()
        }
        await render()
        scheduleTick()
        for await event in events {
            switch event {
            case .input(.quit):
                return .quit
            case .input(.card(let value)):
                if tampered && tamperStopsEntry { break }
                backlight?.wake(at: clock.now)
                if let submission = model.present(card: value) { verify(submission) }
            case .input(.key(let key)):
                if tampered && tamperStopsEntry { break }
                if backlight?.key(at: clock.now) == false { break }  // it only woke the backlight
                handle(key)
                bus.publish(.keyPressed)
            case .remote(let value):
                if tampered && tamperStopsEntry {
                    bus.publish(.remoteUnlockRefused(reason: "tampered"))
                } else if let submission = model.present(remote: value) {
                    backlight?.wake(at: clock.now)
                    verify(submission, remote: true)
                } else {
                    bus.publish(.remoteUnlockRefused(reason: model.phase == .lockedOut ? "locked_out" : "busy"))
                }
            case .texts(let texts):
                composer = FrameComposer(
                    geometry: composer.geometry, texts: texts, maskCharacter: composer.maskCharacter,
                    emptyCharacter: composer.emptyCharacter)
            case .tamper(let active):
                tampered = active
                if active { backlight?.wake(at: clock.now) }
                if active && tamperStopsEntry { _ = model.handle(.action(.clear)) }
            case .mode(let next):
                mode = next
                backlight?.wake(at: clock.now)
            case .inputEnded:
                inputEnded = true
            case .probe(let answer):
                answer.give(true)
            case .tick:
                model.tick()
                _ = backlight?.expire(at: clock.now, idle: isIdle)
            case .enrolled(let attempt, let id, let outcome):
                backlight?.wake(at: clock.now)
                if model.completeEnrolment(attempt: attempt, outcome: outcome) {
                    logger.notice("PIN enrolment decided", metadata: ["attempt_id": "\(id)", "result": "\(outcome.result)"])
                    let decided = TerminalEvent.pinEnrolment(attemptID: id, outcome: outcome, lockedOut: model.phase == .lockedOut)
                    if await !bus.publishRecorded(decided, within: recordWait) {
                        logger.warning("the journal has not recorded the PIN enrolment; its result is shown anyway", metadata: ["attempt_id": "\(id)"])
                    }
                }
                await render()
                replayDeferredKeys()
            case .verdict(let attempt, let id, let kind, let outcome, let provenance, let latency):
                backlight?.wake(at: clock.now)
                if conclude(attempt: attempt, id: id, outcome: outcome, latency: latency) {
                    // The journal records the attempt (fsynced) before its result is shown.
                    let decided = TerminalEvent.attemptDecided(
                        attemptID: id, kind: kind, outcome: outcome, latency: latency, lockedOut: model.phase == .lockedOut,
                        provenance: provenance)
                    if await !bus.publishRecorded(decided, within: recordWait) {
                        logger.warning(
                            "the journal has not recorded the attempt; its result is shown anyway",
                            metadata: ["attempt_id": "\(id)", "waited_ms": "\(recordWait.wholeMilliseconds)"])
                    }
                }
                await render()
                replayDeferredKeys()
            }
            await render()
            if inputEnded && model.phase != .verifying && deferredKeys.isEmpty {
                return .inputEnded
            }
            scheduleTick()
        }
        return .inputEnded
    }

    private func handle(_ key: KeyInput) {
        if model.phase == .verifying && source.isScripted {
            // A script's keys are typed "after" the answer; live keys while verifying are dropped.
            deferredKeys.push(key)
            return
        }
        if let submission = model.handle(key) { verify(submission) }
    }

    private func replayDeferredKeys() {
        while model.phase != .verifying, let key = deferredKeys.pop() {
            if let submission = model.handle(key) { verify(submission) }
        }
    }

    private func verify(_ submission: Submission, remote: Bool = false) {
        if submission.kind == .enrol, let pin = submission.pin {
            enrol(submission, pin: pin)
            return
        }
        let attempt = VerificationAttempt(
            terminalID: terminalID, kind: submission.kind, value: submission.value, pin: submission.pin)
        let id = attempt.attemptID.uuidString.lowercased()
        logger.info(
            remote ? "remote unlock attempt submitted" : "attempt submitted",
            metadata: [
                "attempt_id": "\(id)", "kind": "\(attempt.kind.rawValue)", "digits": "\(submission.value.count)",
            ])
        let verifier = self.verifier
        let continuation = self.continuation
        let clock = self.clock
        Task {
            let started = clock.now
            let answer = await verifier.decide(attempt)
            let provenance = DecisionProvenance(remote: remote, offline: answer.offline)
            continuation?.yield(
                .verdict(
                    attempt: submission.attempt, id: id, kind: submission.kind, outcome: answer.outcome, provenance: provenance,
                    latency: clock.now - started))
        }
    }

    /// Sends a PIN chosen at the door (the code in the submission's value) to the site.
    private func enrol(_ submission: Submission, pin: SecretDigits) {
        let attemptID = UUID()
        let id = attemptID.uuidString.lowercased()
        logger.info("PIN enrolment submitted", metadata: ["attempt_id": "\(id)"])
        let (verifier, continuation, terminalID) = (self.verifier, self.continuation, self.terminalID)
        Task {
            let outcome = await verifier.enrol(terminalID: terminalID, code: submission.value, pin: pin, attemptID: attemptID)
            continuation?.yield(.enrolled(attempt: submission.attempt, id: id, outcome: outcome))
        }
    }

    /// Applies a verdict; true when it was for the pending attempt.
    private func conclude(attempt: UInt64, id: String, outcome: AttemptOutcome, latency: Duration) -> Bool {
        guard model.complete(attempt: attempt, outcome: outcome) else { return false }
        let decision: String
        switch outcome {
        case .granted: decision = "granted"
        case .denied: decision = model.phase == .lockedOut ? "denied, locked out" : "denied"
        case .unavailable: decision = "verifier unavailable"
        }
        var metadata: Logger.Metadata = [
            "attempt_id": "\(id)", "decision": "\(decision)", "latency_ms": "\(latency.wholeMilliseconds)",
        ]
        if let user = outcome.user { metadata["user"] = "\(user)" }
        logger.notice("attempt decided", metadata: metadata)
        if outcome.isDuress {
            // For the operator only: the display and the door treat it as any grant.
            logger.critical("duress PIN used; silent alarm raised", metadata: metadata)
        }
        return true
    }

    /// What replaces the prompt: the tamper text, else the mode's.
    private var alert: String? {
        if tampered { return composer.texts.tamper }
        switch mode {
        case .normal: return nil
        case .lockdown: return composer.texts.lockdown
        case .release: return composer.texts.released
        }
    }

    private func render() async {
        var frame = composer.compose(model.snapshot(), alert: alert)
        frame.backlight = backlight?.isLit ?? true
        guard frame != lastFrame else { return }
        do {
            try await display.show(frame)
            lastFrame = frame
            if displayFailing {
                displayFailing = false
                logger.notice("display recovered")
            }
        } catch {
            if !displayFailing { logger.error("display failed; entry goes on without it", metadata: ["error": "\(error)"]) }
            displayFailing = true
            bus.publish(.displayError)
        }
    }

    /// Nothing typed, no attempt on its way, nothing shown but the prompt: the door may start
    /// again in place (settings from its site) without losing what someone was doing.
    public var isWaitingForInput: Bool { model.phase == .ready }

    /// Nothing typed, nothing shown but the prompt: the backlight may time out.
    private var isIdle: Bool {
        model.phase == .ready && !tampered
    }

    /// Wakes the loop at the model's next deadline (timeouts, countdown, spinner), and only then.
    private func scheduleTick() {
        timer?.cancel()
        timer = nil
        let deadlines = [model.nextDeadline, backlight?.deadline(idle: isIdle)].compactMap { $0 }
        guard let deadline = deadlines.min(), let continuation else { return }
        let clock = self.clock
        timer = Task {
            // By deadline, not by duration: a task that starts late still wakes on time.
            if deadline > clock.now {
                try? await clock.sleep(until: deadline)
            }
            guard !Task.isCancelled else { return }
            continuation.yield(.tick)
        }
    }
}
