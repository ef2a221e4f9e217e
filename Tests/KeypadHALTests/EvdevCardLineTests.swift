import KeypadHAL
import KioskPadCore
import Testing

/// A USB card reader that types: its digits and Enter become one card; lines of a wrong
/// length are dropped with their length; a pause starts the line over; the digits are wiped.
@Suite("evdev: a card reader's typed lines to cards")
struct EvdevCardLineTests {
    let start = ContinuousClock.now

    /// Feeds `text` (digits, `E` for Enter, `B` for Backspace) 5 ms apart from `offset`;
    /// the outcomes, in order.
    func type(_ text: String, into line: EvdevCardLine, from offset: Duration = .zero) -> [EvdevCardLine.Outcome] {
        var outcomes: [EvdevCardLine.Outcome] = []
        for (index, character) in text.enumerated() {
            let key: KeyInput =
                switch character {
                case "E": .action(.submit)
                case "B": .action(.back)
                default: .label(character)
                }
            if let outcome = line.feed(key, at: start + offset + .milliseconds(5 * index)) { outcomes.append(outcome) }
        }
        return outcomes
    }

    func text(_ outcome: EvdevCardLine.Outcome?) -> String {
        switch outcome {
        case .card(let digits)?: digits.withASCIIBytes { String(decoding: $0, as: UTF8.self) }
        case .dropped(let digits)?: "dropped \(digits)"
        case nil: "nothing"
        }
    }

    @Test func digitsThenEnterAreOneCardAndTheLineIsWiped() {
        let line = EvdevCardLine()
        let outcomes = type("0004215739E", into: line)
        #expect(outcomes.count == 1)
        #expect(text(outcomes.first) == "0004215739")
        #expect(line.isEmpty)
    }

    @Test func linesOfAWrongLengthAreDroppedWithTheirLengthOnly() {
        let line = EvdevCardLine()
        #expect(type("123E", into: line).map(text) == ["dropped 3"])
        #expect(type("1234E", into: line).map(text) == ["1234"])
        #expect(type(String(repeating: "9", count: 21) + "E", into: line).map(text) == ["dropped 21"])
        #expect(type(String(repeating: "9", count: 20) + "E", into: line).map(text) == [String(repeating: "9", count: 20)])
        #expect(type("E", into: line).isEmpty, "Enter alone is no line")
        #expect(line.isEmpty)
    }

    @Test func aPauseLongerThanTheGapStartsTheLineOver() {
        let line = EvdevCardLine()
        #expect(type("55", into: line).isEmpty)
        // 501 ms later: the "55" of a glitch does not prefix the card.
        let outcomes = type("12345678E", into: line, from: .milliseconds(10) + EvdevCardLine.gap + .milliseconds(1))
        #expect(outcomes.map(text) == ["12345678"])
    }

    @Test func keysOtherThanDigitsAndEnterAreIgnored() {
        let line = EvdevCardLine()
        var outcomes = type("12B34", into: line)
        for (offset, key) in [KeyInput.label("*"), .label("A"), .action(.cancel)].enumerated() {
            if let outcome = line.feed(key, at: start + .milliseconds(30 + offset)) { outcomes.append(outcome) }
        }
        outcomes += type("E", into: line, from: .milliseconds(40))
        #expect(outcomes.map(text) == ["1234"])
    }
}
