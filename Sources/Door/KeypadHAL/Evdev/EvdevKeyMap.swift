import KioskPadCore

/// Maps Linux input key codes (`KEY_*` from `linux/input-event-codes.h`) to what the
/// terminal's keys do: digits of both the main row and the numeric keypad to their labels,
/// Enter to submit, Backspace to erase one, Esc to cancel, the keypad's `*`, `/`, `+`, `-`,
/// `.` to those labels (bindable in `entry.*_keys`). `keypad.key_map` adds or replaces
/// entries by name (`KEY_F1: "A"`). Pure.
public struct EvdevKeyMap: Equatable, Sendable {
    public static let standard: [UInt16: KeyInput] = {
        var map: [UInt16: KeyInput] = [
            28: .action(.submit), 96: .action(.submit), 14: .action(.back), 1: .action(.cancel),
            55: .label("*"), 98: .label("/"), 78: .label("+"), 74: .label("-"), 83: .label("."),
        ]
        for digit in 0...9 {
            if let main = EvdevKeyCodes.codes["KEY_\(digit)"] { map[main] = .label(Character(String(digit))) }
            if let pad = EvdevKeyCodes.codes["KEY_KP\(digit)"] { map[pad] = .label(Character(String(digit))) }
        }
        return map
    }()

    public private(set) var keys: [UInt16: KeyInput]

    /// The standard map with `overrides` (code -> label) applied.
    public init(overrides: [UInt16: Character] = [:]) {
        keys = EvdevKeyMap.standard
        for (code, label) in overrides { keys[code] = .label(label) }
    }

    /// The key for one input event: a key press (`EV_KEY`, value 1) of a mapped code.
    /// Releases (0), auto-repeats (2), unmapped keys and other event types give nil.
    public func key(type: UInt16, code: UInt16, value: Int32) -> KeyInput? {
        guard type == 1, value == 1 else { return nil }
        return keys[code]
    }
}
