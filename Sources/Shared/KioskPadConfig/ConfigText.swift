/// How config problems show text from the file or the environment: control characters
/// escaped (so a value cannot move the cursor, recolour a log viewer or split a line), and
/// long values cut with their length, so one problem is always one short line.
public enum ConfigText {
    public static let maxShown = 60

    /// `value` quoted, escaped and, past ``maxShown`` characters, cut: `'aaaa...' (10485760 characters)`.
    public static func quoted(_ value: String) -> String {
        let count = value.count
        guard count > maxShown else { return "'\(escaped(value))'" }
        return "'\(escaped(String(value.prefix(maxShown))))...' (\(count) characters)"
    }

    /// A key as it appears in a key path: escaped, and cut like a value when long.
    public static func key(_ key: String) -> String {
        key.count > maxShown ? "\(escaped(String(key.prefix(maxShown))))...(\(key.count) characters)" : escaped(key)
    }

    /// Control characters (C0, DEL, C1) as escapes: `\n`, `\t`, `\u{1B}`.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where isControl(scalar): out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
