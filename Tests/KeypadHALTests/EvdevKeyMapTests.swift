import KeypadHAL
import KioskPadCore
import Testing

/// The evdev decoder on recorded event sequences: what a USB numeric keypad sends for
/// "2", "4", Enter (with scan codes, sync reports, releases and an auto-repeat).
@Suite("evdev: events to keys")
struct EvdevKeyMapTests {
    /// One `struct input_event` in this machine's layout: timeval, type, code, value.
    func event(_ type: UInt16, _ code: UInt16, _ value: Int32, seconds: Int = 1_700_000_000, micros: Int = 0) -> [UInt8] {
        var bytes: [UInt8] = []
        for word in [seconds, micros] { withUnsafeBytes(of: word.littleEndian) { bytes += $0 } }
        withUnsafeBytes(of: type.littleEndian) { bytes += $0 }
        withUnsafeBytes(of: code.littleEndian) { bytes += $0 }
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
        return bytes
    }

    @Test func aRecordedKeypadSequenceGivesEachPressOnceAndIgnoresRepeatsAndReleases() {
        let (msc, key, syn): (UInt16, UInt16, UInt16) = (4, 1, 0)
        var recorded: [UInt8] = []
        recorded += event(msc, 4, 0x70059) + event(key, 80, 1) + event(syn, 0, 0)  // KP2 down
        recorded += event(key, 80, 2) + event(syn, 0, 0)  // auto-repeat
        recorded += event(msc, 4, 0x70059) + event(key, 80, 0) + event(syn, 0, 0)  // KP2 up
        recorded += event(key, 5, 1) + event(key, 5, 0)  // main-row 4
        recorded += event(key, 96, 1) + event(key, 96, 0)  // KPENTER
        recorded += event(key, 14, 1) + event(key, 1, 1) + event(key, 55, 1)  // Backspace, Esc, KP*
        recorded += event(key, 30, 1)  // KEY_A: not mapped
        let map = EvdevKeyMap()
        let keys = EvdevKeySource.events(in: recorded[...]).compactMap { map.key(type: $0.type, code: $0.code, value: $0.value) }
        #expect(keys == [.label("2"), .label("4"), .action(.submit), .action(.back), .action(.cancel), .label("*")])
    }

    @Test func everyDigitOfBothRowsIsMapped() {
        let map = EvdevKeyMap()
        for digit in 0...9 {
            for name in ["KEY_\(digit)", "KEY_KP\(digit)"] {
                let code = EvdevKeyCodes.codes[name]!
                #expect(map.key(type: 1, code: code, value: 1) == .label(Character(String(digit))), "\(name)")
            }
        }
    }

    @Test func theConfiguredMapAddsAndReplacesKeys() {
        let map = EvdevKeyMap(overrides: [EvdevKeyCodes.codes["KEY_F1"]!: "A", EvdevKeyCodes.codes["KEY_KPENTER"]!: "#"])
        #expect(map.key(type: 1, code: 59, value: 1) == .label("A"))
        #expect(map.key(type: 1, code: 96, value: 1) == .label("#"))
        #expect(map.key(type: 1, code: 28, value: 1) == .action(.submit))
    }

    @Test func aPartialEventAtTheEndIsNotRead() {
        let bytes = event(1, 80, 1) + [1, 2, 3]
        #expect(EvdevKeySource.events(in: bytes[...]).count == 1)
    }
}
