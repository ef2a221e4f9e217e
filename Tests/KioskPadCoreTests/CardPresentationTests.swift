import KeypadTestSupport
import KioskPadCore
import Testing

/// A card from a Wiegand reader (`keypad.long_frames: card`) goes through the same model as
/// a PIN: one attempt, exactly once, counted towards the lockout.
@Suite("Entry model: cards")
struct CardPresentationTests {
    let clock = ManualEntryClock()

    func model(_ options: EntryOptions = EntryOptions()) -> EntryModel {
        EntryModel(options: options, clock: clock, randomness: SeededRandomness(seed: 3))
    }

    @Test func aCardIsSubmittedAtOnceAsKindCardAndWipesAPartialPIN() {
        let entry = model()
        #expect(type("12", into: entry).isEmpty)
        let submission = entry.present(card: SecretDigits(ascii: "00065537")!)
        #expect(submission?.kind == .card)
        #expect(submission.map(revealed) == "00065537")
        #expect(entry.phase == .verifying)
        #expect(entry.entryBufferIsWiped, "the two digits typed before the card are gone")
        #expect(entry.snapshot().filledCount == 0, "no PIN slots shown for a card")
        // While it is verified, neither another card nor keys start a second attempt.
        #expect(entry.present(card: SecretDigits(ascii: "00000001")!) == nil)
        #expect(type("5678", into: entry).isEmpty)
        #expect(entry.complete(attempt: submission!.attempt, outcome: .granted(user: "ana")))
        #expect(entry.phase == .result(.granted))
    }

    @Test func aCardOnAResultScreenStartsTheNextAttempt() {
        let entry = model()
        let first = entry.present(card: SecretDigits(ascii: "00000042")!)
        #expect(entry.complete(attempt: first!.attempt, outcome: .denied()))
        let second = entry.present(card: SecretDigits(ascii: "00000043")!)
        #expect(second?.attempt == first!.attempt + 1)
    }

    @Test func deniedCardsCountTowardsTheLockoutAndAreIgnoredDuringIt() {
        let entry = model(EntryOptions(lockout: LockoutPolicy(maxFailures: 2)))
        for _ in 0..<2 {
            let submission = entry.present(card: SecretDigits(ascii: "00000099")!)
            #expect(submission != nil)
            #expect(entry.complete(attempt: submission!.attempt, outcome: .denied()))
        }
        #expect(entry.phase == .lockedOut)
        #expect(entry.present(card: SecretDigits(ascii: "00065537")!) == nil)
    }

    @Test func aCardWaitsForTheChallengeToBeTypedBack() {
        let entry = EntryModel(options: EntryOptions(challenge: .beforePIN), clock: clock, randomness: SeededRandomness(seed: 3))
        #expect(entry.phase == .challenge)
        #expect(entry.present(card: SecretDigits(ascii: "00065537")!) == nil)
        #expect(entry.phase == .challenge)
    }

    @Test func anEntryKindFollowsTheMode() {
        #expect(AttemptKind(EntryMode.pin) == .pin)
        #expect(AttemptKind(EntryMode.code) == .code)
        let entry = model(EntryOptions(mode: .code))
        #expect(type("1234", into: entry).first?.kind == .code)
    }
}
