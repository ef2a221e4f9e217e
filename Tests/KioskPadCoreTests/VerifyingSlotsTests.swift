import KeypadTestSupport
import KioskPadCore
import Testing

/// While an attempt is verified its slots stay filled, masked, under the spinner, as a
/// payment app's PIN view fills the last dot before it spins: the last digit is seen.
@Suite("Verifying: the submitted slots stay filled")
struct VerifyingSlotsTests {
    let clock = ManualEntryClock()

    private func screen(_ entry: EntryModel) -> [String] {
        FrameComposer(geometry: .lcd1602).compose(entry.snapshot()).rows.map(\.trimmingSpaces)
    }

    @Test func theFourthDigitFillsTheLastSlotUnderTheSpinner() {
        let entry = EntryModel(options: EntryOptions(), clock: clock, randomness: SeededRandomness(seed: 7))
        _ = type("123", into: entry)
        #expect(screen(entry)[1] == "* * * _")
        #expect(type("4", into: entry).count == 1)
        #expect(screen(entry)[0].hasPrefix("Verifying..."))
        #expect(screen(entry)[1] == "* * * *")
        #expect(entry.entryBufferIsWiped)  // the slots are a count, not the digits
        #expect(entry.complete(attempt: 1, outcome: .denied()))
        entry.tick()
        clock.advance(by: .seconds(10))
        entry.tick()
        #expect(screen(entry)[1] == "_ _ _ _")
    }

    @Test func anEndKeySubmissionShowsOnlyTheSlotsTyped() {
        var options = EntryOptions()
        options.maxLength = 6
        let entry = EntryModel(options: options, clock: clock, randomness: SeededRandomness(seed: 7))
        #expect(type("2468#", into: entry).count == 1)
        #expect(screen(entry)[1] == "* * * * _ _")
    }

    @Test func aCodeShownWhileTypedIsMaskedWhileVerifying() {
        var options = EntryOptions()
        options.mode = .code
        let entry = EntryModel(options: options, clock: clock, randomness: SeededRandomness(seed: 7))
        _ = type("975", into: entry)
        #expect(screen(entry)[1] == "9 7 5 _")
        _ = type("3", into: entry)
        #expect(screen(entry)[1] == "* * * *")
    }
}
