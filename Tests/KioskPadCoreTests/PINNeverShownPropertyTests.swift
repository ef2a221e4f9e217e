import KeypadTestSupport
import KioskPadCore
import Testing

@Suite("Property: PIN digits never reach a frame")
struct PINNeverShownPropertyTests {
    static let keys: [KeyInput] =
        "0123456789*#?AB".map { KeyInput.label($0) }
        + [.action(.back), .action(.submit), .action(.cancel), .action(.clear), .action(.help)]

    @Test(arguments: [DisplayGeometry.lcd1602, .lcd2004, DisplayGeometry(columns: 8, rows: 2)])
    func randomKeySequencesNeverPutADigitOnTheSlotRow(geometry: DisplayGeometry) {
        let random = SeededRandomness(seed: UInt64(geometry.columns * 31 + geometry.rows))
        for run in 0..<200 {
            let clock = ManualEntryClock()
            let maxLength = 4 + random.index(below: 9)
            let options = EntryOptions(minLength: 4, maxLength: maxLength, endKeyRequired: run % 3 == 0)
            let model = EntryModel(options: options, clock: clock, randomness: random)
            let composer = FrameComposer(geometry: geometry)
            let slotRowIndex = geometry.rows == 2 ? 1 : 2
            for _ in 0..<60 {
                let key = PINNeverShownPropertyTests.keys[random.index(below: PINNeverShownPropertyTests.keys.count)]
                if let submission = model.handle(key) {
                    let outcomes: [AttemptOutcome] = [.granted(), .denied(), .unavailable]
                    model.complete(attempt: submission.attempt, outcome: outcomes[random.index(below: 3)])
                }
                clock.advance(by: .milliseconds(random.index(below: 4000)))
                model.tick()
                let frame = composer.compose(model.snapshot())
                let phase = model.snapshot().phase
                if phase == .entering || phase == .ready {
                    #expect(!frame.rows[slotRowIndex].contains { $0.isNumber }, "run \(run): \(frame.rows)")
                }
                #expect(model.snapshot().visibleDigits.isEmpty)
            }
        }
    }
}
