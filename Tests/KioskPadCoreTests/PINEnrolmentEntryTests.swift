import KeypadTestSupport
import KioskPadCore
import Testing

/// Choosing a PIN at the door (`entry.enrolment`): the end key on an empty entry, the
/// enrolment code, the new PIN twice; a weak PIN or two different entries are refused at
/// once, saying why; everything typed is wiped on cancel and timeout.
@Suite("Entry model: a PIN chosen at the door")
struct PINEnrolmentEntryTests {
    let clock = ManualEntryClock()

    func model(_ options: EntryOptions = EntryOptions(enrolment: true)) -> EntryModel {
        EntryModel(options: options, clock: clock, randomness: SeededRandomness(seed: 9))
    }

    func text(_ digits: SecretDigits?) -> String? {
        digits?.withASCIIBytes { String(decoding: $0, as: UTF8.self) }
    }

    func prompt(_ entry: EntryModel) -> String {
        FrameComposer(geometry: DisplayGeometry(columns: 20, rows: 2)).compose(entry.snapshot()).rows[0].trimmingCharacters(in: .whitespaces)
    }

    @Test(arguments: [("1111", WeakPIN.sameDigit), ("1234", .sequence), ("9876", .sequence), ("8901", .sequence), ("000000", .sameDigit)])
    func weakPINsAreNamed(_ pin: String, _ reason: WeakPIN) {
        #expect(WeakPIN.problem(SecretDigits(ascii: pin)!) == reason)
    }

    @Test(arguments: ["2580", "1357", "1243", "2468", "0192"])
    func otherPINsAreNotWeak(_ pin: String) {
        #expect(WeakPIN.problem(SecretDigits(ascii: pin)!) == nil)
    }

    @Test func theCodeAndTheNewPINTwiceGoAsOneEnrolment() {
        let entry = model()
        #expect(prompt(entry) == "Enter PIN")
        #expect(type("#", into: entry).isEmpty)
        #expect(entry.enrolmentStep == .code)
        #expect(prompt(entry) == "Enrolment code")
        #expect(type("48213907", into: entry).isEmpty, "a code of more digits than a PIN is typed whole")
        #expect(entry.snapshot().filledCount == 8 && entry.snapshot().visibleDigits.isEmpty, "the code is masked")
        #expect(type("#", into: entry).isEmpty)
        #expect(entry.enrolmentStep == .newPIN && prompt(entry) == "New PIN")
        #expect(type("1234", into: entry).isEmpty, "too easy: refused here")
        #expect(entry.enrolmentStep == .newPIN && prompt(entry) == DisplayTexts().weakPIN)
        #expect(type("2580", into: entry).isEmpty)
        #expect(entry.enrolmentStep == .repeatPIN && prompt(entry) == "New PIN again")
        #expect(type("2581", into: entry).isEmpty, "a repeat that differs starts the new PIN again")
        #expect(entry.enrolmentStep == .newPIN && prompt(entry) == DisplayTexts().pinsDiffer)
        #expect(type("2580", into: entry).isEmpty)
        let submitted = type("2580", into: entry)
        #expect(submitted.count == 1)
        #expect(submitted.first?.kind == .enrol)
        #expect(text(submitted.first?.value) == "48213907")
        #expect(text(submitted.first?.pin) == "2580")
        #expect(entry.phase == .verifying && entry.enrolmentStep == nil)
        #expect(entry.entryBufferIsWiped)
        #expect(entry.completeEnrolment(attempt: submitted[0].attempt, outcome: .pinSet(user: "ana")))
        #expect(entry.phase == .result(.granted) && prompt(entry) == "PIN set")
    }

    @Test func aRefusalSaysWhyAndOnlyAWrongCodeCountsTowardTheLockout() {
        let entry = model(EntryOptions(lockout: LockoutPolicy(maxFailures: 2), enrolment: true))
        func enrol() -> Submission? { type("#48213907#25802580", into: entry).first }
        let first = enrol()
        #expect(entry.completeEnrolment(attempt: first!.attempt, outcome: .refused(.previousPIN)))
        #expect(entry.phase == .result(.denied) && prompt(entry) == "Not the old PIN")
        #expect(entry.recentFailures == 0)
        clock.advance(by: .seconds(3))
        entry.tick()
        let second = enrol()
        #expect(entry.completeEnrolment(attempt: second!.attempt, outcome: .refused(.invalidCode)))
        #expect(prompt(entry) == "Code not valid" && entry.recentFailures == 1)
        clock.advance(by: .seconds(3))
        entry.tick()
        let third = enrol()
        #expect(entry.completeEnrolment(attempt: third!.attempt, outcome: .refused(.invalidCode)))
        #expect(entry.phase == .lockedOut)
    }

    @Test func cancelTimeoutAndBackOnNothingLeaveItWithEverythingWiped() {
        let entry = model(EntryOptions(bindings: KeyBindings(cancelKeys: ["C"]), enrolment: true))
        #expect(type("#4821", into: entry).isEmpty)
        clock.advance(by: .seconds(10))
        entry.tick()
        #expect(entry.enrolmentStep == nil && entry.phase == .ready && entry.entryBufferIsWiped)
        #expect(type("#48213907#25", into: entry).isEmpty)
        entry.handle(.label("C"))
        #expect(entry.enrolmentStep == nil && entry.entryBufferIsWiped)
        #expect(type("#*", into: entry).isEmpty)
        #expect(entry.enrolmentStep == nil, "back on an empty code leaves choosing a PIN")
        // Without entry.enrolment the end key on nothing does nothing, as before.
        let plain = model(EntryOptions())
        #expect(type("#", into: plain).isEmpty && plain.enrolmentStep == nil && plain.phase == .ready)
    }

    @Test func aCodeShorterThanFourDigitsIsNotSubmitted() {
        let entry = model()
        #expect(type("#482#", into: entry).isEmpty)
        #expect(entry.enrolmentStep == .code)
    }
}
