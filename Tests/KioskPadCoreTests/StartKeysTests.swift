import KeypadTestSupport
import KioskPadCore
import Testing

/// `entry.start_keys` (ESPHome key_collector's `start_keys`): with start keys set, digits
/// count only after one of them.
@Suite("Entry model: start keys")
struct StartKeysTests {
    let clock = ManualEntryClock()

    func model() -> EntryModel {
        var options = EntryOptions()
        options.bindings.startKeys = ["A"]
        return EntryModel(options: options, clock: clock, randomness: SeededRandomness(seed: 1))
    }

    @Test func digitsBeforeAStartKeyAreNotTypedAndTheStartKeyIsNotADigit() {
        let entry = model()
        #expect(type("12", into: entry).isEmpty)
        #expect(entry.phase == .ready && entry.snapshot().filledCount == 0)
        type("A", into: entry)
        #expect(entry.phase == .entering && entry.snapshot().filledCount == 0)
        let submissions = type("1234", into: entry)
        #expect(submissions.count == 1 && revealed(submissions[0]) == "1234")
    }

    @Test func afterAResultOrATimeoutAStartKeyIsNeededAgain() {
        let entry = model()
        type("A1234", into: entry)
        #expect(entry.complete(attempt: 1, outcome: .denied()))
        #expect(type("5", into: entry).isEmpty)  // dismisses the result only
        #expect(entry.phase == .ready && entry.snapshot().filledCount == 0)
        type("A12", into: entry)
        clock.advance(by: .seconds(10))
        entry.tick()
        #expect(entry.phase == .ready)
        type("34", into: entry)
        #expect(entry.snapshot().filledCount == 0)
    }

    @Test func deletingToEmptyKeepsTheEntryStarted() {
        let entry = model()
        type("A1*", into: entry)
        #expect(entry.phase == .entering)
        type("7", into: entry)
        #expect(entry.snapshot().filledCount == 1)
    }

    @Test func withoutStartKeysDigitsStartAnEntry() {
        let entry = EntryModel(options: EntryOptions(), clock: clock, randomness: SeededRandomness(seed: 1))
        type("12", into: entry)
        #expect(entry.snapshot().filledCount == 2)
    }
}
