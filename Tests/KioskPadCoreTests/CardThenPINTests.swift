import KeypadTestSupport
import KioskPadCore
import Testing

/// At a door that asks for a card and its holder's PIN, the verifier answers a card with
/// `second_factor_required`: the model holds the card, asks for the PIN in the slots and
/// sends both as one `card_pin` attempt; the card goes on cancel, timeout and help.
@Suite("Entry model: a card, then its PIN")
struct CardThenPINTests {
    let clock = ManualEntryClock()
    static let second = AttemptOutcome.denied(reason: .secondFactorRequired)

    func model(_ options: EntryOptions = EntryOptions()) -> EntryModel {
        EntryModel(options: options, clock: clock, randomness: SeededRandomness(seed: 5))
    }

    /// A card presented and answered with `second_factor_required`.
    func cardAsked(_ entry: EntryModel, _ card: String = "00123456") -> Submission? {
        guard let submission = entry.present(card: SecretDigits(ascii: card)!) else { return nil }
        #expect(entry.complete(attempt: submission.attempt, outcome: Self.second))
        return submission
    }

    @Test func aCardAskedForItsPINIsSentWithThePINAsOneAttempt() {
        let entry = model()
        let card = cardAsked(entry)
        #expect(card?.kind == .card)
        #expect(entry.phase == .entering)
        #expect(entry.holdsCard)
        #expect(entry.snapshot().cardHeld)
        #expect(entry.recentFailures == 0, "asking for the PIN is not a denial")
        let submissions = type("2468", into: entry)
        #expect(submissions.count == 1)
        let both = submissions.first
        #expect(both?.kind == .cardPIN)
        #expect(both.map(revealed) == "00123456")
        #expect(both?.pin.map { $0.withASCIIBytes { String(decoding: $0, as: UTF8.self) } } == "2468")
        #expect(both?.attempt == card!.attempt + 1)
        #expect(!entry.holdsCard)
        #expect(entry.entryBufferIsWiped)
        #expect(entry.complete(attempt: both!.attempt, outcome: .granted(user: "ana")))
        #expect(entry.phase == .result(.granted))
    }

    @Test func theHeldCardIsDroppedOnTimeoutCancelAndHelp() {
        let entry = model(EntryOptions(bindings: KeyBindings(cancelKeys: ["C"], helpKeys: ["H"])))
        _ = cardAsked(entry)
        #expect(type("24", into: entry).isEmpty)
        clock.advance(by: .seconds(10))
        entry.tick()
        #expect(entry.phase == .ready)
        #expect(!entry.holdsCard)
        #expect(entry.entryBufferIsWiped)
        // After a timeout the next four digits are a PIN of their own.
        #expect(type("2468", into: entry).first?.kind == .pin)

        let cancelled = model(EntryOptions(bindings: KeyBindings(cancelKeys: ["C"], helpKeys: ["H"])))
        _ = cardAsked(cancelled)
        cancelled.handle(.label("C"))
        #expect(!cancelled.holdsCard)
        let helped = model(EntryOptions(bindings: KeyBindings(cancelKeys: ["C"], helpKeys: ["H"])))
        _ = cardAsked(helped)
        helped.handle(.label("H"))
        #expect(!helped.holdsCard)
    }

    @Test func erasingEveryDigitKeepsTheCardUntilTheTimeout() {
        let entry = model()
        _ = cardAsked(entry)
        #expect(type("1*", into: entry).isEmpty)
        #expect(entry.holdsCard)
        #expect(entry.nextDeadline != nil, "an idle held card still times out")
        clock.advance(by: .seconds(10))
        entry.tick()
        #expect(!entry.holdsCard)
    }

    @Test func aPINAloneAtSuchADoorIsDeniedWithoutCountingTowardsTheLockout() {
        let entry = model(EntryOptions(lockout: LockoutPolicy(maxFailures: 1)))
        let pin = type("2468", into: entry).first
        #expect(entry.complete(attempt: pin!.attempt, outcome: Self.second))
        #expect(entry.phase == .result(.denied))
        #expect(!entry.holdsCard)
        #expect(entry.recentFailures == 0)
        // A wrong PIN after a card counts, as any denial does.
        clock.advance(by: .seconds(3))
        entry.tick()
        _ = cardAsked(entry)
        let both = type("1111", into: entry).first
        #expect(entry.complete(attempt: both!.attempt, outcome: .denied()))
        #expect(entry.phase == .lockedOut)
    }

    @Test func inCodeModeThePINAfterACardIsMaskedAndPromptedForAsSuch() {
        let entry = model(EntryOptions(mode: .code, minLength: 4, maxLength: 6, endKeyRequired: true))
        _ = cardAsked(entry)
        #expect(type("24", into: entry).isEmpty)
        let snapshot = entry.snapshot()
        #expect(snapshot.visibleDigits.isEmpty, "a PIN is never shown, even on a code-mode door")
        #expect(snapshot.filledCount == 2)
        let frame = FrameComposer(geometry: DisplayGeometry(columns: 16, rows: 2)).compose(snapshot)
        #expect(frame.rows[0].trimmingCharacters(in: .whitespaces) == DisplayTexts().cardPIN)
        #expect(!frame.rows[1].contains("2") && !frame.rows[1].contains("4"))
    }

    @Test func anotherCardWhileOneIsHeldReplacesIt() {
        let entry = model()
        _ = cardAsked(entry)
        let next = entry.present(card: SecretDigits(ascii: "00654321")!)
        #expect(next?.kind == .card)
        #expect(!entry.holdsCard)
        #expect(entry.complete(attempt: next!.attempt, outcome: .granted(user: "ben")))
    }
}

/// A card the site learned for a user (a door armed to learn one): `Card learned` shown, the
/// door shut, nothing counted toward the lockout, and the next entry as usual.
@Suite("Entry model: a card learned by the site")
struct CardLearnedTests {
    let clock = ManualEntryClock()

    @Test func aLearnedCardIsShownAndCountsNoDenial() {
        let entry = EntryModel(options: EntryOptions(lockout: LockoutPolicy(maxFailures: 1)), clock: clock, randomness: SeededRandomness(seed: 5))
        let card = entry.present(card: SecretDigits(ascii: "10048576")!)
        #expect(entry.complete(attempt: card!.attempt, outcome: .denied(reason: .cardEnrolled)))
        #expect(entry.phase == .result(.denied) && entry.recentFailures == 0)
        let snapshot = entry.snapshot()
        #expect(snapshot.cardLearned)
        let frame = FrameComposer(geometry: .lcd1602).compose(snapshot)
        #expect(frame.rows[0] == "  Card learned  ", "\(frame.rows)")
        clock.advance(by: .seconds(5))
        entry.tick()
        #expect(entry.phase == .ready && !entry.snapshot().cardLearned)
        // A plain denial afterwards is one (maxFailures 1: locked).
        let next = entry.present(card: SecretDigits(ascii: "10048577")!)
        #expect(entry.complete(attempt: next!.attempt, outcome: .denied()))
        #expect(entry.phase == .lockedOut)
    }
}
