import DoorController
import DoorOSDP
import KeypadDisplay
import KeypadHAL
import KioskPadAccess
import KioskPadCore
import Testing

/// How keys and cards from a reader enter the door, and what the door sends back.
struct OSDPCardAndKeyTests {
    func text(_ digits: SecretDigits) -> String { digits.withASCIIBytes { String(decoding: $0, as: UTF8.self) } }

    @Test func keypadBytesMapToTheTerminalsLabels() {
        #expect(Array("0123456789".utf8).map(OSDPKeySource.label) == Array("0123456789").map { $0 })
        #expect(OSDPKeySource.label(0x7F) == "*" && OSDPKeySource.label(0x0D) == "#")
        #expect(OSDPKeySource.label(0x2A) == "*" && OSDPKeySource.label(0x23) == "#")
        #expect(OSDPKeySource.label(0x00) == nil && OSDPKeySource.label(0x45) == nil && OSDPKeySource.label(0x61) == nil)
    }

    @Test func aTwentySixBitCardIsTheNumberAWiegandReaderGives() throws {
        let bits = WiegandFrame.numberBits(0x0A_1234, bits: 26)
        var bytes = [UInt8](repeating: 0, count: 4)
        for (index, bit) in bits.enumerated() where bit { bytes[index / 8] |= 0x80 >> UInt8(index % 8) }
        let card = try OSDPKeySource.digits(of: OSDPCard(rawFormat: 1, bits: 26, data: bytes)).get()
        #expect(text(card) == text(WiegandKeySource.card(0x0A_1234, bits: 26)))
        bytes[3] ^= 0x40  // the trailing parity bit
        #expect(throws: OSDPKeySource.CardRejection.parity) { try OSDPKeySource.digits(of: OSDPCard(rawFormat: 1, bits: 26, data: bytes)).get() }
    }

    @Test func otherCardsAreTheirBitsAsANumberOrDigits() throws {
        // 32 bits, 0x00000102: 258, zero-padded to the 10 digits of 2^32 - 1.
        #expect(text(try OSDPKeySource.digits(of: OSDPCard(rawFormat: 0, bits: 32, data: [0, 0, 1, 2])).get()) == "0000000258")
        #expect(text(try OSDPKeySource.digits(of: OSDPCard(rawFormat: nil, bits: 4, data: Array("0420".utf8))).get()) == "0420")
        #expect(throws: OSDPKeySource.CardRejection.format) { try OSDPKeySource.digits(of: OSDPCard(rawFormat: nil, bits: 2, data: Array("4A".utf8))).get() }
        #expect(throws: OSDPKeySource.CardRejection.format) {
            try OSDPKeySource.digits(of: OSDPCard(rawFormat: 0, bits: 80, data: Array(repeating: 1, count: 10))).get()
        }
    }

    @Test func aCardPrintsNeitherItsNumberNorItsBits() {
        let card = OSDPCard(rawFormat: 1, bits: 26, data: [0x12, 0x34, 0x56, 0x40])
        #expect("\(card)" == "<card of 26 bits>")
        #expect("\(OSDPKey(hex: "000102030405060708090a0b0c0d0e0f")!)" == "<OSDP key>")
    }

    @Test func keyFilesMustBe32HexDigits() {
        #expect(OSDPKey(hex: "000102030405060708090A0B0C0D0E0F\n") != nil)
        #expect(OSDPKey(hex: "0001020304050607") == nil)
        #expect(OSDPKey(hex: "000102030405060708090a0b0c0d0e0g") == nil)
    }

    @Test func grantsAndDenialsLightTheReader() {
        let granted = OSDPReaderFeedback.commands(
            for: .attemptDecided(attemptID: "a", kind: .pin, outcome: .granted(user: "u"), latency: .zero, lockedOut: false))
        #expect(granted.map(\.command) == [.led, .buzzer])
        #expect(granted[0].data[5] == OSDPReaderFeedback.green)
        let denied = OSDPReaderFeedback.commands(
            for: .attemptDecided(attemptID: "a", kind: .pin, outcome: .denied(), latency: .zero, lockedOut: true))
        #expect(denied[0].data[5] == OSDPReaderFeedback.red && denied[0].data[4] > 0)  // flashing for a lockout
        #expect(OSDPReaderFeedback.commands(for: .keyPressed).isEmpty)
    }
}

/// The readers' text panel as the terminal's display.
struct OSDPTextDisplayTests {
    @Test func onlyChangedRowsAreSentPaddedToTheWidth() {
        let first = OSDPTextDisplay.commands(from: [], to: Frame(rows: ["Enter PIN", "____"]), width: 16)
        #expect(first.map(\.command) == [.text, .text])
        #expect(first[0].data == [0, 1, 0, 1, 1, 16] + Array("Enter PIN       ".utf8))
        #expect(first[1].data[3] == 2)
        let next = OSDPTextDisplay.commands(from: ["Enter PIN       ", "____            "], to: Frame(rows: ["Enter PIN", "*___"]), width: 16)
        #expect(next.count == 1 && next[0].data[3] == 2 && next[0].data.suffix(16) == ArraySlice("*___            ".utf8))
    }
}
