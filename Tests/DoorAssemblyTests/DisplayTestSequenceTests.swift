import DoorAssembly
import DoorConfig
import KeypadDisplay
import KeypadTestSupport
import KioskPadConfig
import KioskPadCore
import Testing

@Suite("kioskpad display test on the recorder bus")
struct DisplayTestSequenceTests {
    @Test(arguments: [DisplayGeometry.lcd1602, .lcd2004])
    func everyTestFrameAppearsOnTheEmulatedLCD(geometry: DisplayGeometry) throws {
        let bus = RecordingI2CBus()
        let display = HD44780Display(geometry: geometry, bus: bus, sleeper: RecordingSleeper(bus: bus), startWorker: false)
        let configuration = DisplayConfiguration(driver: .hd44780, geometry: geometry, maskGlyph: .dot)
        let frames = DisplayTestSequence.frames(composer: TerminalAssembly.composer(for: configuration))
        #expect(frames.map(\.name) == ["pattern", "blocks", "prompt", "slots", "verifying", "granted", "denied", "unavailable", "locked", "challenge", "help"])
        let emulator = HD44780Emulator()
        var fed = 0
        for (name, frame) in frames {
            try display.render(frame)
            let writes = bus.writes
            emulator.feed(Array(writes[fed...]))
            fed = writes.count
            #expect(emulator.screen(geometry) == frame.rows, "\(name)")
        }
        #expect(emulator.screen(geometry).joined().contains("Access") == false)  // last is help
        #expect(frames[3].frame.text.contains("\u{2022} \u{2022} _ _"))
    }

    @Test func theConfiguredPinMapReachesTheEncoder() async throws {
        let configuration = try ConfigLoader.parse(
            yaml: "display:\n  driver: hd44780\n  pin_map: {rs: 4, rw: 5, e: 6, backlight: 7, d4: 0, d5: 1, d6: 2, d7: 3}\nverifier: {kind: demo}\n",
            source: "t")
        let encoder = TerminalAssembly.encoder(for: try #require(configuration.display.i2c))
        #expect(encoder.pins == HD44780PinMap(rs: 4, rw: 5, enable: 6, backlight: 7, d4: 0, d5: 1, d6: 2, d7: 3))
    }
}
