import CGlibcFloor
import Testing

#if canImport(Glibc)
    import Glibc

    // The functions CGlibcFloor defines, by their symbols: the programs' own calls (and the
    // Swift runtime's) land on these.
    private typealias CText = UnsafePointer<CChar>
    private typealias CEnd = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
    @_silgen_name("__isoc23_strtol") private func c23strtol(_ text: CText, _ end: CEnd?, _ base: Int32) -> Int
    @_silgen_name("__isoc23_strtoll") private func c23strtoll(_ text: CText, _ end: CEnd?, _ base: Int32) -> Int64
    @_silgen_name("__isoc23_strtoul") private func c23strtoul(_ text: CText, _ end: CEnd?, _ base: Int32) -> UInt
    @_silgen_name("strlcpy") private func floorStrlcpy(_ destination: UnsafeMutablePointer<CChar>, _ source: UnsafePointer<CChar>, _ size: Int) -> Int
    @_silgen_name("strlcat") private func floorStrlcat(_ destination: UnsafeMutablePointer<CChar>, _ source: UnsafePointer<CChar>, _ size: Int) -> Int

    /// What strtol-like `read` made of `text`: the value, how many characters it read, errno.
    private func parse<Value>(_ text: String, _ read: (CText, CEnd) -> Value) -> (Value, Int, Int32) {
        text.withCString { start in
            var end: UnsafeMutablePointer<CChar>?
            errno = 0
            let value = read(start, &end)
            return (value, end.map { UnsafePointer($0) - start } ?? -1, errno)
        }
    }

    /// A C string buffer's text, up to its terminator.
    private func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    @Suite struct GlibcFloorTests {
        @Test func theC23ParsersReadBinaryAfter0bWithBase0Or2() {
            #expect(parse("0b101", { c23strtol($0, $1, 0) }) == (5, 5, 0))
            #expect(parse("  -0B11z", { c23strtol($0, $1, 2) }) == (-3, 7, 0))
            #expect(parse("+0b1", { c23strtoll($0, $1, 0) }) == (1, 4, 0))
            #expect(parse("-0b1", { c23strtoul($0, $1, 0) }) == (UInt.max, 4, 0))
            // Base 10 or 16: a b is no prefix, and the C17 reading is C23's.
            #expect(parse("0b1", { c23strtol($0, $1, 10) }) == (0, 1, 0))
            #expect(parse("0b1", { c23strtol($0, $1, 16) }) == (0xb1, 3, 0))
            #expect(parse("0x1f", { c23strtol($0, $1, 0) }) == (31, 4, 0))
            #expect(parse("0b2", { c23strtol($0, $1, 0) }) == (0, 1, 0))
        }

        @Test func aBinaryNumberOutOfRangeSaturatesWithERANGE() {
            let ones = "0b" + String(repeating: "1", count: 64)
            #expect(parse(ones, { c23strtol($0, $1, 0) }) == (Int.max, 66, ERANGE))
            #expect(parse("-" + ones, { c23strtoll($0, $1, 0) }) == (Int64.min, 67, ERANGE))
            #expect(parse(ones, { c23strtoul($0, $1, 0) }) == (UInt.max, 66, 0))
            #expect(parse(ones + "1", { c23strtoul($0, $1, 0) }) == (UInt.max, 67, ERANGE))
            let minimum = "-0b1" + String(repeating: "0", count: 63)
            #expect(parse(minimum, { c23strtol($0, $1, 2) }) == (Int.min, 67, 0))
        }

        @Test func strlcpyAndStrlcatTruncateAndSayWhatTheyTriedToMake() {
            var buffer = [CChar](repeating: 0x55, count: 6)
            #expect(floorStrlcpy(&buffer, "keypad", 6) == 6)
            #expect(text(buffer) == "keypa")
            #expect(floorStrlcpy(&buffer, "pin", 0) == 3)
            #expect(text(buffer) == "keypa")
            _ = floorStrlcpy(&buffer, "ab", 6)
            #expect(floorStrlcat(&buffer, "cdefg", 6) == 7)
            #expect(text(buffer) == "abcde")
            #expect(floorStrlcat(&buffer, "xyz", 3) == 6)  // no terminator within 3: size + length
        }

        @Test func fmodKeepsItsResultsAndErrors() {
            #expect(fmod(7.5, 2) == 1.5)
            #expect(fmod(-7.5, 2) == -1.5)
            #expect(fmodf(7.5, 2) == 1.5)
            #expect(fmod(4_503_599_627_370_497, 2) == 1)  // 2^52 + 1, exact
            #expect(fmod(Double.greatestFiniteMagnitude, 1) == 0)
            #expect(fmod(-0.0, 1).sign == .minus)
            #expect(fmod(1, .infinity) == 1)
            errno = 0
            #expect(fmod(1, 0).isNaN)
            #expect(errno == EDOM)
            errno = 0
            #expect(fmodf(.infinity, 1).isNaN)
            #expect(errno == EDOM)
            #expect((7.5).truncatingRemainder(dividingBy: 2) == 1.5)
        }

        @Test func theFloorSaysWhichVersionItStandsIn() {
            #expect(String(cString: kp_glibc_floor_replaces()) == "GLIBC_2.38")
        }
    }
#endif
