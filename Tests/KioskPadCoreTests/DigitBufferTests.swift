import KioskPadCore
import Testing

@Suite("Digit buffer and secret digits")
struct DigitBufferTests {
    @Test func takeMovesDigitsOutAndZeroesTheBuffer() {
        let buffer = DigitBuffer(capacity: 4)
        buffer.append(4)
        buffer.append(2)
        #expect(!buffer.isZeroed)
        let secret = buffer.take()
        #expect(buffer.isZeroed)
        #expect(buffer.count == 0)
        #expect(secret.withASCIIBytes { Array($0) } == Array("42".utf8))
    }

    @Test func removeLastZeroesTheFreedCell() {
        let buffer = DigitBuffer(capacity: 2)
        buffer.append(9)
        buffer.removeLast()
        #expect(buffer.isZeroed)
    }

    @Test func appendStopsAtCapacity() {
        let buffer = DigitBuffer(capacity: 2)
        #expect(buffer.append(1))
        #expect(buffer.append(2))
        #expect(!buffer.append(3))
        #expect(buffer.count == 2)
    }

    @Test func secretDigitsNeverPrintTheirValue() {
        let secret = SecretDigits(ascii: "2468")!
        #expect(String(describing: secret) == "<4 digits>")
        #expect(String(reflecting: secret) == "<4 digits>")
        var dumped = ""
        dump(secret, to: &dumped)
        #expect(!dumped.contains("2468"))
        #expect(!"\(secret)".contains("2"))
    }

    @Test func secretDigitsRejectNonDigits() {
        #expect(SecretDigits(ascii: "12a4") == nil)
        #expect(SecretDigits(ascii: "١٢٣٤") == nil)
    }
}
