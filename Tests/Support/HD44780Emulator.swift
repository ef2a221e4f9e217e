import KeypadDisplay
import KioskPadCore

/// Decodes the exact byte stream a PCF8574 backpack receives into what an HD44780
/// controller would do: nibbles latched on E's falling edge, RS for data vs instruction,
/// 8-bit mode until the function set to 4-bit, then byte pairs; DDRAM and CGRAM writes,
/// entry mode and address moves. The screen is read back from virtual DDRAM.
public final class HD44780Emulator {
    /// One latched instruction (after 4-bit assembly) or data byte.
    public struct Transfer: Equatable {
        public let value: UInt8
        public let isData: Bool
        public let at: Duration
    }

    public let pins: HD44780PinMap
    public private(set) var ddram = [UInt8](repeating: 0x20, count: 128)
    public private(set) var cgram = [UInt8](repeating: 0, count: 64)
    public private(set) var eightBitNibbles: [(nibble: UInt8, at: Duration)] = []
    public private(set) var transfers: [Transfer] = []
    public private(set) var displayOn = false
    public private(set) var twoLines = false
    public private(set) var backlightStates: Set<Bool> = []
    public private(set) var readWrites = 0
    private var address = 0
    private var inCGRAM = false
    private var eightBit = true
    private var increment = true
    private var pendingHigh: UInt8?
    private var previous: UInt8 = 0

    public init(pins: HD44780PinMap = .standard) {
        self.pins = pins
    }

    public func feed(_ writes: [RecordingI2CBus.Write]) {
        for write in writes { feed(write.byte, at: write.at) }
    }

    public func feed(_ byte: UInt8, at time: Duration) {
        if byte & (1 << pins.rw) != 0 { readWrites += 1 }
        backlightStates.insert(byte & (1 << pins.backlight) != 0)
        let enableFell = previous & (1 << pins.enable) != 0 && byte & (1 << pins.enable) == 0
        if enableFell {
            // The controller latches D4-D7 and RS as they were while E was high.
            let data = [pins.d4, pins.d5, pins.d6, pins.d7]
            var nibble: UInt8 = 0
            for (bit, pin) in data.enumerated() where previous & (1 << pin) != 0 { nibble |= 1 << bit }
            latch(nibble, rs: previous & (1 << pins.rs) != 0, at: time)
        }
        previous = byte
    }

    private func latch(_ nibble: UInt8, rs: Bool, at time: Duration) {
        if eightBit {
            eightBitNibbles.append((nibble, time))
            execute(nibble << 4, rs: rs, at: time)
            return
        }
        guard let high = pendingHigh else {
            pendingHigh = nibble
            return
        }
        pendingHigh = nil
        execute(high << 4 | nibble, rs: rs, at: time)
    }

    private func execute(_ value: UInt8, rs: Bool, at time: Duration) {
        transfers.append(Transfer(value: value, isData: rs, at: time))
        if rs {
            if inCGRAM {
                cgram[address & 0x3F] = value
                address = (address + 1) & 0x3F
            } else {
                ddram[address & 0x7F] = value
                address = (address + (increment ? 1 : -1)) & 0x7F
            }
            return
        }
        if value & 0x80 != 0 {
            inCGRAM = false
            address = Int(value & 0x7F)
        } else if value & 0x40 != 0 {
            inCGRAM = true
            address = Int(value & 0x3F)
        } else if value & 0x20 != 0 {
            eightBit = value & 0x10 != 0
            twoLines = value & 0x08 != 0
        } else if value & 0x10 != 0 {
            // cursor/display shift: not used by the driver
        } else if value & 0x08 != 0 {
            displayOn = value & 0x04 != 0
        } else if value & 0x04 != 0 {
            increment = value & 0x02 != 0
        } else if value & 0x02 != 0 {
            address = 0
            inCGRAM = false
        } else if value & 0x01 != 0 {
            ddram = [UInt8](repeating: 0x20, count: 128)
            address = 0
            inCGRAM = false
            increment = true
        }
    }

    /// The visible text, row by row; CGRAM slot 0 reads as the mask dot, slot 1 as `\`,
    /// 0xFF as a full block.
    public func screen(_ geometry: DisplayGeometry) -> [String] {
        (0..<geometry.rows).map { row in
            let base = Int(HD44780Encoder.rowAddresses[row])
            return String(
                ddram[base..<(base + geometry.columns)].map { code -> Character in
                    switch code {
                    case HD44780Encoder.dotSlot: return HD44780Encoder.maskDot
                    case HD44780Encoder.backslashSlot: return "\\"
                    case 0xFF: return HD44780Encoder.fullBlock
                    default: return Character(Unicode.Scalar(code))
                    }
                })
        }
    }

    /// The 8 rows of CGRAM `slot`.
    public func glyph(_ slot: Int) -> [UInt8] {
        Array(cgram[(slot * 8)..<(slot * 8 + 8)])
    }
}

/// An ``LCDSleeper`` that moves a ``RecordingI2CBus``'s clock instead of sleeping, so
/// writes carry the times the driver would have produced.
public struct RecordingSleeper: LCDSleeper {
    public let bus: RecordingI2CBus

    public init(bus: RecordingI2CBus) {
        self.bus = bus
    }

    public func sleep(for duration: Duration) {
        bus.advance(by: duration)
    }
}
