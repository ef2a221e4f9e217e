import KeypadHAL
import KeypadTestSupport
import KioskPadCore
import Testing

@Suite("Simulated-mode key map")
struct KeyByteDecoderTests {
    func decode(_ text: String, scripted: Bool = false) -> [KeySourceEvent] {
        var decoder = KeyByteDecoder(scripted: scripted)
        return decoder.decode(Array(text.utf8))
    }

    @Test func digitsAndKeypadSymbolsAreLabels() {
        #expect(decode("09*#?A") == "09*#?A".map { .key(.label($0)) })
    }

    @Test func backspaceAndDeleteEraseEnterSubmitsEscCancels() {
        #expect(
            decode("\u{7F}\u{08}\r\u{1B}") == [
                .key(.action(.back)), .key(.action(.back)), .key(.action(.submit)), .key(.action(.cancel)),
            ])
    }

    @Test func ctrlCQuits() {
        #expect(decode("1\u{03}2") == [.key(.label("1")), .quit, .key(.label("2"))])
    }

    @Test func arrowAndFunctionKeySequencesAreSkippedWhole() {
        #expect(decode("1\u{1B}[A2\u{1B}OP3\u{1B}[15~4") == "1234".map { .key(.label($0)) })
    }

    @Test func anEscapeSplitAcrossChunksIsStillASequence() {
        var decoder = KeyByteDecoder(scripted: false)
        #expect(decoder.decode(Array("1\u{1B}".utf8), endOfChunk: false) == [.key(.label("1"))])
        #expect(decoder.decode(Array("[B2".utf8)) == [.key(.label("2"))])
    }

    @Test func newlinesAreIgnoredInScriptsButSubmitOnATerminal() {
        #expect(decode("12\n34\n", scripted: true) == "1234".map { .key(.label($0)) })
        #expect(decode("\n", scripted: false) == [.key(.action(.submit))])
    }

    @Test func scriptedSourceReplaysDecodedText() async {
        var seen: [KeySourceEvent] = []
        for await event in ScriptedKeySource(text: "1\u{7F}2").events() { seen.append(event) }
        #expect(seen == [.key(.label("1")), .key(.action(.back)), .key(.label("2"))])
        #expect(ScriptedKeySource(text: "").isScripted)
    }
}
