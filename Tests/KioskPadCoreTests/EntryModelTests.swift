import KeypadTestSupport
import KioskPadCore
import Testing

@Suite("Entry model")
struct EntryModelTests {
    let clock = ManualEntryClock()

    func model(_ options: EntryOptions = EntryOptions()) -> EntryModel {
        EntryModel(options: options, clock: clock, randomness: SeededRandomness(seed: 7))
    }

    @Test func startsReadyWithEmptySlots() {
        let entry = model()
        #expect(entry.phase == .ready)
        #expect(entry.snapshot().filledCount == 0)
        #expect(entry.snapshot().slotCount == 4)
    }

    @Test func digitsFillSlotsAndAutoSubmitAtMaxLengthExactlyOnce() {
        let entry = model()
        #expect(type("123", into: entry).isEmpty)
        #expect(entry.phase == .entering)
        #expect(entry.snapshot().filledCount == 3)
        let submissions = type("4", into: entry)
        #expect(submissions.count == 1)
        #expect(revealed(submissions[0]) == "1234")
        #expect(submissions[0].attempt == 1)
        #expect(entry.phase == .verifying)
        // Keys while verifying are ignored, not queued: nothing fires, nothing is kept.
        #expect(type("5678#", into: entry).isEmpty)
        #expect(entry.entryBufferIsWiped)
        #expect(entry.complete(attempt: 1, outcome: .denied()))
        #expect(entry.snapshot().filledCount == 0)
    }

    @Test func backErasesOneSlotAndClearErasesAll() {
        var options = EntryOptions()
        options.bindings.clearKeys = ["C"]
        let entry = model(options)
        type("12", into: entry)
        entry.handle(.label("*"))
        #expect(entry.snapshot().filledCount == 1)
        entry.handle(.action(.back))
        #expect(entry.phase == .ready)
        entry.handle(.action(.back))
        #expect(entry.phase == .ready)
        type("987", into: entry)
        entry.handle(.label("C"))
        #expect(entry.phase == .ready)
        #expect(entry.entryBufferIsWiped)
        // After the erasures only the new digits count.
        let submissions = type("4321", into: entry)
        #expect(submissions.map(revealed) == ["4321"])
    }

    @Test func keysOutsideTheBindingsHaveNoEffect() {
        let entry = model()
        type("1A", into: entry)
        entry.handle(.label("x"))
        entry.handle(.label("D"))
        #expect(entry.snapshot().filledCount == 1)
        #expect(entry.phase == .entering)
    }

    @Test func digitsNotInAllowedKeysAreIgnored() {
        var options = EntryOptions()
        options.bindings.allowedKeys = Set("123456789")
        let entry = model(options)
        type("10", into: entry)
        #expect(entry.snapshot().filledCount == 1)
    }

    @Test func endKeyRequiredWaitsForTheEndKeyAndStopsAtMaxLength() {
        var options = EntryOptions(minLength: 4, maxLength: 6, endKeyRequired: true)
        options.bindings.endKeys = ["#"]
        let entry = model(options)
        #expect(type("1234567", into: entry).isEmpty)
        #expect(entry.snapshot().filledCount == 6)
        let submissions = type("#", into: entry)
        #expect(submissions.map(revealed) == ["123456"])
    }

    @Test func endKeyBelowMinLengthDoesNothing() {
        let entry = model(EntryOptions(minLength: 5, maxLength: 8))
        #expect(type("1234#", into: entry).isEmpty)
        #expect(entry.phase == .entering)
        #expect(type("5#", into: entry).map(revealed) == ["12345"])
    }

    @Test func staleOrRepeatedVerdictsAreIgnored() {
        let entry = model()
        let first = type("1111", into: entry)[0]
        #expect(!entry.complete(attempt: first.attempt + 1, outcome: .granted()))
        #expect(entry.phase == .verifying)
        #expect(entry.complete(attempt: first.attempt, outcome: .granted()))
        #expect(!entry.complete(attempt: first.attempt, outcome: .denied()))
        #expect(entry.phase == .result(.granted))
    }

    @Test func inactivityTimeoutClearsAPartialEntry() {
        let entry = model()
        type("12", into: entry)
        clock.advance(by: .milliseconds(9_900))
        entry.tick()
        #expect(entry.phase == .entering)
        #expect(entry.nextDeadline == .seconds(10))
        clock.advance(by: .milliseconds(100))
        entry.tick()
        #expect(entry.phase == .ready)
        #expect(entry.entryBufferIsWiped)
        #expect(entry.nextDeadline == nil)
    }

    @Test func aKeyAfterTheTimeoutStartsAFreshEntry() {
        let entry = model()
        type("12", into: entry)
        clock.advance(by: .seconds(11))
        // No tick in between: the key itself must see the timeout first.
        #expect(type("3456", into: entry).map(revealed) == ["3456"])
    }

    @Test func resultShowsForResultDurationThenReturnsToReady() {
        let entry = model()
        let submission = type("1234", into: entry)[0]
        entry.complete(attempt: submission.attempt, outcome: .granted(message: "Hi"))
        #expect(entry.snapshot().message == "Hi")
        clock.advance(by: .milliseconds(2_999))
        entry.tick()
        #expect(entry.phase == .result(.granted))
        clock.advance(by: .milliseconds(1))
        entry.tick()
        #expect(entry.phase == .ready)
        #expect(entry.snapshot().message == nil)
    }

    @Test func submitKeyDismissesAResultAndADigitStartsTheNextEntry() {
        let entry = model()
        let first = type("1234", into: entry)[0]
        entry.complete(attempt: first.attempt, outcome: .denied())
        #expect(entry.phase == .result(.denied))
        entry.handle(.label("#"))
        #expect(entry.phase == .ready)
        let second = type("1234", into: entry)[0]
        entry.complete(attempt: second.attempt, outcome: .denied())
        type("5", into: entry)
        #expect(entry.phase == .entering)
        #expect(entry.snapshot().filledCount == 1)
    }

    @Test func cancelAbandonsTheEntry() {
        let entry = model()
        type("123", into: entry)
        entry.handle(.action(.cancel))
        #expect(entry.phase == .ready)
        #expect(entry.entryBufferIsWiped)
    }

    @Test func helpShowsHelpAndWipesDigits() {
        let entry = model()
        type("12", into: entry)
        entry.handle(.label("?"))
        #expect(entry.phase == .help)
        #expect(entry.entryBufferIsWiped)
        entry.handle(.action(.cancel))
        #expect(entry.phase == .ready)
    }

    @Test func codeModeShowsDigitsPinModeNever() {
        let pin = model()
        type("12", into: pin)
        #expect(pin.snapshot().visibleDigits.isEmpty)
        let code = model(EntryOptions(mode: .code))
        type("12", into: code)
        #expect(code.snapshot().visibleDigits == [1, 2])
    }

    @Test func verifierErrorsNeverCountTowardsLockout() {
        let entry = model(EntryOptions(lockout: LockoutPolicy(maxFailures: 2)))
        for _ in 0..<5 {
            let submission = type("0000", into: entry)[0]
            entry.complete(attempt: submission.attempt, outcome: .unavailable)
            #expect(entry.phase == .result(.unavailable))
            entry.handle(.label("#"))
        }
        #expect(entry.recentFailures == 0)
    }

    @Test func repeatedDenialsLockOutAndTheCountdownEnds() {
        let entry = model(EntryOptions(lockout: LockoutPolicy(maxFailures: 3, lockout: .seconds(30))))
        for _ in 0..<3 {
            let submission = type("0000", into: entry)[0]
            entry.complete(attempt: submission.attempt, outcome: .denied())
            entry.handle(.label("#"))
        }
        #expect(entry.phase == .lockedOut)
        #expect(entry.snapshot().lockSecondsRemaining == 30)
        #expect(type("1234", into: entry).isEmpty)
        clock.advance(by: .milliseconds(500))
        #expect(entry.snapshot().lockSecondsRemaining == 30)
        #expect(entry.nextDeadline == .seconds(1))
        clock.advance(by: .milliseconds(29_500))
        entry.tick()
        #expect(entry.phase == .ready)
    }
}
