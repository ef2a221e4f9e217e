import KioskPadCore
import Testing

@Suite("Lowercase hex")
struct LowercaseHexTests {
    @Test func everyByteIsTwoLowercaseDigitsInOrder() {
        #expect(LowercaseHex.string([0x00, 0x0a, 0x7f, 0xa0, 0xff]) == "000a7fa0ff")
        #expect(LowercaseHex.string([UInt8]()) == "")
        let all = LowercaseHex.string((0...255).map(UInt8.init))
        #expect(all.count == 512 && all.hasPrefix("000102") && all.hasSuffix("fdfeff"))
    }
}
