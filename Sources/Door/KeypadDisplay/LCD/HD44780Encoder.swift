/// One step of talking to the LCD: bytes for the PCF8574, or a pause the controller needs.
public enum LCDStep: Equatable, Sendable {
    case bytes([UInt8])
    case wait(Duration)
}

/// Turns HD44780 instructions and text into PCF8574 bytes (pure). In 4-bit mode each byte
/// is two nibbles, high first; each nibble is latched by strobing E: one byte with E high,
/// then the same byte with E low. RW stays low (write only); the backlight bit rides on
/// every byte.
public struct HD44780Encoder: Sendable {
    /// DDRAM address of the first cell of each row (16x2 and 20x4 modules).
    public static let rowAddresses: [UInt8] = [0x00, 0x40, 0x14, 0x54]
    /// CGRAM slot of the mask dot and of the backslash (the ROM has a yen sign at 0x5C).
    public static let dotSlot: UInt8 = 0
    public static let backslashSlot: UInt8 = 1
    public static let dotGlyph: [UInt8] = [0b00000, 0b00000, 0b01110, 0b11111, 0b11111, 0b01110, 0b00000, 0b00000]
    public static let backslashGlyph: [UInt8] = [0b00000, 0b10000, 0b01000, 0b00100, 0b00010, 0b00001, 0b00000, 0b00000]
    /// The character a frame uses for the mask dot.
    public static let maskDot: Character = "\u{2022}"
    /// A full block (ROM code 0xFF), for the contrast test pattern.
    public static let fullBlock: Character = "\u{2588}"

    public let pins: HD44780PinMap
    public let backlight: Bool

    public init(pins: HD44780PinMap = .standard, backlight: Bool = true) {
        self.pins = pins
        self.backlight = backlight
    }

    /// The two bytes that latch one nibble.
    public func nibble(_ value: UInt8, rs: Bool) -> [UInt8] {
        var byte: UInt8 = 0
        let data = [pins.d4, pins.d5, pins.d6, pins.d7]
        for bit in 0..<4 where value & (1 << bit) != 0 { byte |= 1 << data[bit] }
        if rs { byte |= 1 << pins.rs }
        if backlight { byte |= 1 << pins.backlight }
        return [byte | (1 << pins.enable), byte]
    }

    public func write(_ value: UInt8, rs: Bool) -> [UInt8] {
        nibble(value >> 4, rs: rs) + nibble(value & 0x0F, rs: rs)
    }

    /// An instruction and the time it takes (1.52 ms for clear and home, 37 us otherwise).
    public func command(_ instruction: UInt8) -> [LCDStep] {
        [.bytes(write(instruction, rs: false)), .wait(instruction <= 0x03 ? .microseconds(2_000) : .microseconds(50))]
    }

    /// The datasheet's 4-bit initialisation by instruction (HD44780U figure 24), then the
    /// glyphs, a cleared display, cursor off.
    public func initialization(rows: Int) -> [LCDStep] {
        var steps: [LCDStep] = [
            .bytes([backlight ? 1 << UInt8(pins.backlight) : 0]),
            .wait(.milliseconds(50)),  // > 40 ms after Vcc rises
            .bytes(nibble(0x3, rs: false)), .wait(.microseconds(4_500)),  // > 4.1 ms
            .bytes(nibble(0x3, rs: false)), .wait(.microseconds(150)),  // > 100 us
            .bytes(nibble(0x3, rs: false)), .wait(.microseconds(150)),
            .bytes(nibble(0x2, rs: false)), .wait(.microseconds(150)),  // now 4-bit
        ]
        steps += command(rows > 1 ? 0x28 : 0x20)  // function set: 4-bit, 2 lines, 5x8
        steps += command(0x08)  // display off
        steps += command(0x01)  // clear
        steps += command(0x06)  // entry mode: increment, no shift
        steps += glyph(HD44780Encoder.dotGlyph, slot: HD44780Encoder.dotSlot)
        steps += glyph(HD44780Encoder.backslashGlyph, slot: HD44780Encoder.backslashSlot)
        steps += command(0x0C)  // display on, cursor off, blink off
        return steps
    }

    /// Programs a 5x8 glyph into CGRAM `slot` (0...7).
    public func glyph(_ rows: [UInt8], slot: UInt8) -> [LCDStep] {
        command(0x40 | (slot << 3)) + [.bytes(rows.flatMap { write($0 & 0x1F, rs: true) })]
    }

    /// Moves the cursor to `row`, `column`.
    public func move(row: Int, column: Int) -> [LCDStep] {
        command(0x80 | (HD44780Encoder.rowAddresses[row] + UInt8(column)))
    }

    /// Writes character codes at the cursor.
    public func text(_ codes: [UInt8]) -> [LCDStep] {
        [.bytes(codes.flatMap { write($0, rs: true) })]
    }

    /// The character ROM (A00) code for a frame character.
    public static func code(for character: Character) -> UInt8 {
        if character == maskDot { return dotSlot }
        if character == "\\" { return backslashSlot }
        if character == fullBlock { return 0xFF }
        guard let ascii = character.asciiValue, (0x20...0x7D).contains(ascii) else { return UInt8(ascii: "?") }
        return ascii
    }
}
