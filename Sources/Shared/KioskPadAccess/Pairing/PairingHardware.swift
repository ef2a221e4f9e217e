/// The one-line hardware summary a door sends with its announcement, as both ends check it:
/// at most ``maxBytes``, and no control characters (no line breaks, no terminal escapes for an
/// administrator's screen).
public enum PairingHardware {
    public static let maxBytes = 200

    public static func isSummary(_ text: String) -> Bool {
        text.utf8.count <= maxBytes && !text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
