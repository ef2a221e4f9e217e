import KeypadHAL
import KioskPadCore
import Testing

/// The Wiegand decoder on recorded pulse sequences: which wire pulsed, and when (as the
/// kernel dates a falling edge). Frames are written out bit by bit as a reader sends them.
@Suite("Wiegand: pulses to frames")
struct WiegandDecoderTests {
    func bits(_ text: String) -> [Bool] { text.map { $0 == "1" } }

    /// Feeds each frame's bits 2 ms apart, frames `spacing` apart; returns every result.
    func decode(_ frames: [String], gap: Duration = .milliseconds(25), spacing: Duration = .milliseconds(150))
        -> [Result<WiegandFrame, WiegandFrame.Rejection>]
    {
        var decoder = WiegandDecoder(frameGap: gap)
        var results: [Result<WiegandFrame, WiegandFrame.Rejection>] = []
        var start = Duration.zero
        for frame in frames {
            for (index, bit) in frame.enumerated() {
                if let ended = decoder.pulse(one: bit == "1", at: start + .milliseconds(2 * index)) { results.append(ended) }
            }
            start += spacing
        }
        if let last = decoder.frame(at: start + gap) { results.append(last) }
        return results
    }

    @Test func fourBitKeysAreDigitsStarAndHash() {
        #expect(WiegandFrame.decode(bits("0101")) == .success(.key("5")))
        #expect(WiegandFrame.decode(bits("0000")) == .success(.key("0")))
        #expect(WiegandFrame.decode(bits("1001")) == .success(.key("9")))
        #expect(WiegandFrame.decode(bits("1010")) == .success(.key("*")))
        #expect(WiegandFrame.decode(bits("1011")) == .success(.key("#")))
        #expect(WiegandFrame.decode(bits("1100")) == .success(.key("A")))
    }

    @Test func eightBitKeysNeedTheInvertedNibble() {
        #expect(WiegandFrame.decode(bits("10100101")) == .success(.key("5")))
        #expect(WiegandFrame.decode(bits("01001011")) == .success(.key("#")))
        #expect(WiegandFrame.decode(bits("01010101")) == .failure(.checkNibble))
        #expect(WiegandFrame.decode(bits("11110001")) == .failure(.checkNibble))
    }

    @Test func aTwentySixBitFrameWithGoodParityGivesItsTwentyFourDataBits() {
        // Facility 1, number 1: even parity 1 (one 1 among the first 12 data bits), odd 0.
        let frame = "1" + "00000001" + "0000" + "000000000001" + "0"
        #expect(frame.count == 26)
        #expect(WiegandFrame.decode(bits(frame)) == .success(.number(bits: 26, data: 1 << 16 | 1)))
        // Facility 0, number 1234 (0x04D2): a whole PIN sent as one frame.
        let pin = "0" + "00000000" + "0000" + "010011010010" + "0"
        #expect(WiegandFrame.decode(bits(pin)) == .success(.number(bits: 26, data: 1234)))
    }

    @Test func aWrongParityBitOrAFlippedDataBitIsRejected() {
        let good = "1" + "00000001" + "0000" + "000000000001" + "0"
        for position in good.indices {
            var flipped = Array(good)
            flipped[good.distance(from: good.startIndex, to: position)] = good[position] == "1" ? "0" : "1"
            #expect(WiegandFrame.decode(bits(String(flipped))) == .failure(.parity), "bit \(good.distance(from: good.startIndex, to: position))")
        }
    }

    @Test func thirtyFourBitFramesRoundTripAndCheckBothHalves() {
        for data: UInt32 in [0, 1, 0xDEAD_BEEF, 0xFFFF_FFFF, 0x0001_0000] {
            let frame = WiegandFrame.numberBits(data, bits: 34)
            #expect(frame.count == 34)
            #expect(WiegandFrame.decode(frame) == .success(.number(bits: 34, data: data)))
            var broken = frame
            broken[33].toggle()
            #expect(WiegandFrame.decode(broken) == .failure(.parity))
            broken = frame
            broken[0].toggle()
            #expect(WiegandFrame.decode(broken) == .failure(.parity))
        }
        // The encoder agrees with the hand-written 26-bit frame above.
        #expect(WiegandFrame.numberBits(1 << 16 | 1, bits: 26) == bits("10000000100000000000000010"))
    }

    @Test func anyOtherBitCountIsRejected() {
        for count in [1, 2, 3, 5, 7, 9, 24, 25, 27, 33, 35, 37] {
            #expect(WiegandFrame.decode(Array(repeating: false, count: count)) == .failure(.bitCount), "\(count) bits")
        }
    }

    @Test func framesAreSplitByTheGapAndTheLastEndsAtItsDeadline() {
        let results = decode(["0101", "10100101", "0" + "00000000" + "0000" + "010011010010" + "0", "1011"])
        #expect(results == [.success(.key("5")), .success(.key("5")), .success(.number(bits: 26, data: 1234)), .success(.key("#"))])
    }

    @Test func aTruncatedFrameAndNoiseAreDroppedAndTheNextFrameStillDecodes() {
        let full = String(WiegandFrame.numberBits(4321, bits: 26).map { $0 ? "1" : "0" })
        let results = decode([String(full.dropLast()), String(repeating: "1", count: 70), "0111"], spacing: .milliseconds(300))
        #expect(results == [.failure(.bitCount), .failure(.bitCount), .success(.key("7"))])
    }

    @Test func nothingEndsBeforeTheGapHasPassed() {
        var decoder = WiegandDecoder(frameGap: .milliseconds(25))
        #expect(decoder.deadline == nil)
        #expect(decoder.frame(at: .seconds(5)) == nil)
        for (index, bit) in "0011".enumerated() { _ = decoder.pulse(one: bit == "1", at: .milliseconds(100 + 2 * index)) }
        #expect(decoder.deadline == .milliseconds(131))
        #expect(decoder.frame(at: .milliseconds(130)) == nil)
        #expect(decoder.frame(at: .milliseconds(131)) == .success(.key("3")))
        #expect(decoder.deadline == nil)
    }

    @Test func aWholePINFrameTypesClearItsDigitsAndSubmit() {
        let keys = WiegandKeySource.keys(for: .number(bits: 26, data: 1234), pinDigits: 4...4)
        #expect(keys == [.action(.clear), .action(.digit(1)), .action(.digit(2)), .action(.digit(3)), .action(.digit(4)), .action(.submit)])
        // Wiegand carries a number: 0042 arrives as 42 and is padded back to min_length.
        let padded = WiegandKeySource.keys(for: .number(bits: 26, data: 42), pinDigits: 4...6)
        #expect(padded == [.action(.clear), .action(.digit(0)), .action(.digit(0)), .action(.digit(4)), .action(.digit(2)), .action(.submit)])
        // More digits than an entry takes is dropped, never cut to max_length.
        #expect(WiegandKeySource.keys(for: .number(bits: 34, data: 1_234_567), pinDigits: 4...6) == nil)
        #expect(WiegandKeySource.keys(for: .key("#"), pinDigits: 4...4) == [.label("#")])
    }
}

@Suite("Report limiter")
struct ReportLimiterTests {
    @Test func oneReportPerIntervalCountingTheOnesHeldBack() {
        var limiter = ReportLimiter(interval: .seconds(10))
        #expect(limiter.note(at: .zero) == 1)
        #expect(limiter.note(at: .seconds(1)) == nil)
        #expect(limiter.note(at: .seconds(9)) == nil)
        #expect(limiter.note(at: .seconds(10)) == 3)
        #expect(limiter.note(at: .seconds(25)) == 1)
    }
}
