/// Linux input key codes by their `linux/input-event-codes.h` names, for the ones a keypad
/// map (`keypad.key_map`) may name: digits of both rows, the numeric keypad's keys, Enter,
/// Backspace, Esc, A-D and F1-F12.
public enum EvdevKeyCodes {
    public static let codes: [String: UInt16] = {
        var codes: [String: UInt16] = [
            "KEY_ESC": 1, "KEY_BACKSPACE": 14, "KEY_TAB": 15, "KEY_ENTER": 28, "KEY_SPACE": 57,
            "KEY_KPASTERISK": 55, "KEY_KPMINUS": 74, "KEY_KPPLUS": 78, "KEY_KPDOT": 83,
            "KEY_KPENTER": 96, "KEY_KPSLASH": 98, "KEY_NUMLOCK": 69, "KEY_DELETE": 111,
            "KEY_KP0": 82, "KEY_KP1": 79, "KEY_KP2": 80, "KEY_KP3": 81, "KEY_KP4": 75,
            "KEY_KP5": 76, "KEY_KP6": 77, "KEY_KP7": 71, "KEY_KP8": 72, "KEY_KP9": 73,
            "KEY_0": 11, "KEY_A": 30, "KEY_B": 48, "KEY_C": 46, "KEY_D": 32,
        ]
        for digit in 1...9 { codes["KEY_\(digit)"] = UInt16(digit + 1) }
        for number in 1...12 { codes["KEY_F\(number)"] = UInt16(number <= 10 ? 58 + number : 76 + number) }
        return codes
    }()
}
