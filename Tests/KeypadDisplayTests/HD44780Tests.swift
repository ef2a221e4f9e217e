import KeypadDisplay
import KeypadTestSupport
import KioskPadCore
import Synchronization
import Testing

@Suite("HD44780 over PCF8574, against the emulator")
struct HD44780Tests {
    func lcd(_ geometry: DisplayGeometry, pins: HD44780PinMap = .standard, backlight: Bool = true) -> (HD44780Display, RecordingI2CBus) {
        let bus = RecordingI2CBus()
        let display = HD44780Display(
            geometry: geometry, bus: bus, encoder: HD44780Encoder(pins: pins, backlight: backlight),
            sleeper: RecordingSleeper(bus: bus), startWorker: false)
        return (display, bus)
    }

    func screen(_ bus: RecordingI2CBus, _ geometry: DisplayGeometry, pins: HD44780PinMap = .standard) -> [String] {
        let emulator = HD44780Emulator(pins: pins)
        emulator.feed(bus.writes)
        return emulator.screen(geometry)
    }

    @Test func aDarkFrameClearsTheBacklightBitWithoutRedrawingAndTheNextLightsIt() throws {
        let (display, bus) = lcd(.lcd1602)
        let composer = FrameComposer(geometry: .lcd1602)
        var frame = composer.compose(EntrySnapshot(phase: .ready, mode: .pin, slotCount: 4))
        try display.render(frame)
        let lit = bus.bytes.count
        #expect(bus.bytes.allSatisfy { $0 & 0x08 != 0 })
        frame.backlight = false
        try display.render(frame)
        #expect(Array(bus.bytes[lit...]) == [0x00])  // one byte, E low: only the backlight changes
        try display.render(frame)
        #expect(bus.bytes.count == lit + 1)  // nothing to write for the same dark frame
        frame.backlight = true
        try display.render(frame)
        #expect(Array(bus.bytes[(lit + 1)...]) == [0x08])
        #expect(screen(bus, .lcd1602) == frame.rows)
    }

    static let snapshots: [EntrySnapshot] = [
        EntrySnapshot(phase: .ready, mode: .pin, slotCount: 4),
        EntrySnapshot(phase: .entering, mode: .pin, slotCount: 6, filledCount: 3),
        EntrySnapshot(phase: .verifying, mode: .pin, slotCount: 4, spinnerStep: 3),
        EntrySnapshot(phase: .result(.granted), mode: .pin, slotCount: 4, message: "Hello"),
        EntrySnapshot(phase: .result(.unavailable), mode: .pin, slotCount: 4),
        EntrySnapshot(phase: .lockedOut, mode: .pin, slotCount: 4, lockSecondsRemaining: 45),
        EntrySnapshot(phase: .entering, mode: .code, slotCount: 12, filledCount: 7, visibleDigits: [1, 2, 3, 4, 5, 6, 7]),
    ]

    @Test(arguments: [DisplayGeometry.lcd1602, .lcd2004])
    func afterEachFrameTheScreenShowsExactlyTheComposedFrame(geometry: DisplayGeometry) throws {
        let (display, bus) = lcd(geometry)
        let composer = FrameComposer(geometry: geometry)
        for snapshot in HD44780Tests.snapshots {
            let frame = composer.compose(snapshot)
            try display.render(frame)
            #expect(screen(bus, geometry) == frame.rows, "\(snapshot.phase)")
        }
    }

    @Test func theInitSequenceFollowsTheDatasheetOrderAndDelays() throws {
        let (display, bus) = lcd(.lcd1602)
        try display.render(Frame(rows: ["", ""].map { $0.padding(toLength: 16, withPad: " ", startingAt: 0) }))
        let emulator = HD44780Emulator()
        emulator.feed(bus.writes)
        let nibbles = emulator.eightBitNibbles
        #expect(nibbles.map(\.nibble) == [0x3, 0x3, 0x3, 0x2])
        #expect(nibbles[0].at >= .milliseconds(40))  // > 40 ms after power-up
        #expect(nibbles[1].at - nibbles[0].at >= .microseconds(4_100))  // > 4.1 ms
        #expect(nibbles[2].at - nibbles[1].at >= .microseconds(100))  // > 100 us
        let instructions = emulator.transfers.filter { !$0.isData }.map(\.value)
        // After the 8-bit phase: function set (4-bit, 2 lines), display off, clear, entry mode.
        #expect(Array(instructions.dropFirst(4).prefix(4)) == [0x28, 0x08, 0x01, 0x06])
        let clear = emulator.transfers.firstIndex { $0.value == 0x01 && !$0.isData }!
        #expect(emulator.transfers[clear + 1].at - emulator.transfers[clear].at >= .microseconds(1_520))
        #expect(emulator.displayOn)
        #expect(emulator.twoLines)
        #expect(emulator.readWrites == 0)
    }

    @Test func theMaskDotAndBackslashGlyphsAreProgrammedAndUsed() throws {
        let (display, bus) = lcd(.lcd1602)
        let composer = FrameComposer(geometry: .lcd1602, maskCharacter: HD44780Encoder.maskDot)
        let frame = composer.compose(EntrySnapshot(phase: .entering, mode: .pin, slotCount: 4, filledCount: 2))
        try display.render(frame)
        let emulator = HD44780Emulator()
        emulator.feed(bus.writes)
        #expect(emulator.glyph(0) == HD44780Encoder.dotGlyph)
        #expect(emulator.glyph(1) == HD44780Encoder.backslashGlyph)
        #expect(emulator.screen(.lcd1602)[1] == "    \u{2022} \u{2022} _ _     ")
        #expect(emulator.ddram[0x44] == HD44780Encoder.dotSlot)
        let spinning = composer.compose(EntrySnapshot(phase: .verifying, mode: .pin, slotCount: 4, spinnerStep: 3))
        try display.render(spinning)
        #expect(screen(bus, .lcd1602)[0].contains("Verifying... \\"))
    }

    @Test func aKeypressRewritesOnlyTheChangedCell() throws {
        let (display, bus) = lcd(.lcd1602)
        let composer = FrameComposer(geometry: .lcd1602)
        try display.render(composer.compose(EntrySnapshot(phase: .entering, mode: .pin, slotCount: 4, filledCount: 1)))
        let before = HD44780Emulator()
        before.feed(bus.writes)
        let bytesBefore = bus.bytes.count
        try display.render(composer.compose(EntrySnapshot(phase: .entering, mode: .pin, slotCount: 4, filledCount: 2)))
        // One cursor move (2 nibbles x 2 bytes) and one character (2 nibbles x 2 bytes).
        #expect(bus.bytes.count - bytesBefore == 8)
        let emulator = HD44780Emulator()
        emulator.feed(bus.writes)
        #expect(emulator.transfers.dropFirst(before.transfers.count).map(\.value) == [UInt8(0x80 | 0x46), UInt8(ascii: "*")])
        #expect(display.statistics.bytes > 8)
    }

    @Test func anotherPinMapIsDecodedTheSameWay() throws {
        // A common alternative backpack: D4..D7 on P0..P3, RS, RW, E, backlight on P4..P7.
        let pins = HD44780PinMap(rs: 4, rw: 5, enable: 6, backlight: 7, d4: 0, d5: 1, d6: 2, d7: 3)
        let (display, bus) = lcd(.lcd2004, pins: pins)
        let frame = FrameComposer(geometry: .lcd2004).compose(EntrySnapshot(phase: .entering, mode: .pin, slotCount: 4, filledCount: 3))
        try display.render(frame)
        #expect(screen(bus, .lcd2004, pins: pins) == frame.rows)
        #expect(screen(bus, .lcd2004, pins: .standard) != frame.rows)
    }

    @Test(arguments: [true, false])
    func theBacklightBitRidesOnEveryByte(on: Bool) throws {
        let (display, bus) = lcd(.lcd1602, backlight: on)
        try display.render(Frame(rows: [String(repeating: "x", count: 16), String(repeating: "y", count: 16)]))
        let emulator = HD44780Emulator()
        emulator.feed(bus.writes)
        #expect(emulator.backlightStates == [on])
    }

    @Test func frameDiffMergesRunsSeparatedByOneCell() {
        let old: [[UInt8]] = [Array("abcdefgh".utf8)]
        let new: [[UInt8]] = [Array("aXcYefZh".utf8)]
        let runs = FrameDiff.runs(from: old, to: new)
        #expect(runs.map(\.column) == [1, 6])
        #expect(runs.map { $0.codes.count } == [3, 1])
    }
}

@Suite("HD44780 faults through the recorder bus", .serialized)
struct HD44780FaultTests {
    @Test func aDeviceGoneMidRunNeverBlocksAndTheDisplayComesBack() async throws {
        let bus = RecordingI2CBus()
        let messages = MessageLog()
        let display = HD44780Display(
            geometry: .lcd1602, bus: bus, sleeper: RecordingSleeper(bus: bus),
            retryDelays: [.milliseconds(5)], log: { messages.append($0) })
        let composer = FrameComposer(geometry: .lcd1602)
        try await display.show(composer.compose(EntrySnapshot(phase: .ready, mode: .pin, slotCount: 4)))
        #expect(display.waitUntilShown(timeout: .seconds(5)))
        bus.setFailure(I2CError(code: 6, message: "No such device or address"))
        // show() returns at once even though every write now fails.
        let clock = ContinuousClock()
        let elapsed = try await clock.measure {
            for filled in 1...4 {
                try await display.show(composer.compose(EntrySnapshot(phase: .entering, mode: .pin, slotCount: 4, filledCount: filled)))
            }
        }
        #expect(elapsed < .milliseconds(100))
        try await Task.sleep(for: .milliseconds(100))
        #expect(display.statistics.errors >= 2)
        #expect(!display.waitUntilShown(timeout: .milliseconds(50)))
        let latest = composer.compose(EntrySnapshot(phase: .result(.granted), mode: .pin, slotCount: 4))
        try await display.show(latest)
        bus.setFailure(nil)
        #expect(display.waitUntilShown(timeout: .seconds(5)))
        #expect(display.statistics.initialisations >= 2)
        let emulator = HD44780Emulator()
        emulator.feed(bus.writes)
        #expect(emulator.screen(.lcd1602) == latest.rows)
        #expect(messages.all.contains { $0.hasPrefix("display write failed") })
        #expect(messages.all.contains { $0.contains("re-initialised") })
        #expect(messages.all.filter { $0.hasPrefix("display write failed") }.count == 1)
        await display.close()
    }
}

final class MessageLog: Sendable {
    private let messages = Mutex<[String]>([])
    func append(_ message: String) { messages.withLock { $0.append(message) } }
    var all: [String] { messages.withLock { $0 } }
}
