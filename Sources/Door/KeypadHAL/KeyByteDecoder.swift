import KioskPadCore

/// Decodes bytes from a keyboard or a pipe into key events, per the simulated-mode key map:
/// `0`-`9` and any other printable character are labels (so `*`, `#`, `?` work as on a
/// keypad); Backspace/DEL erase; Enter submits; a lone Esc cancels; Ctrl-C quits; escape
/// sequences (arrow and function keys) are skipped whole. In scripted mode newlines are
/// ignored, so a script may be split over lines.
public struct KeyByteDecoder: Sendable {
    public let scripted: Bool
    private var pendingEscape = false
    private var inSequence = false

    public init(scripted: Bool) {
        self.scripted = scripted
    }

    public mutating func decode(_ bytes: some Sequence<UInt8>, endOfChunk: Bool = true) -> [KeySourceEvent] {
        var events: [KeySourceEvent] = []
        for byte in bytes {
            if inSequence {
                // CSI/SS3 sequences end with a byte in 0x40...0x7E.
                if (0x40...0x7E).contains(byte) { inSequence = false }
                continue
            }
            if pendingEscape {
                pendingEscape = false
                if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "O") {
                    inSequence = true
                    continue
                }
                events.append(.key(.action(.cancel)))
            }
            switch byte {
            case 0x1B: pendingEscape = true
            case 0x03: events.append(.quit)
            case 0x04 where !scripted: events.append(.quit)
            case 0x08, 0x7F: events.append(.key(.action(.back)))
            case 0x0D: events.append(.key(.action(.submit)))
            case 0x0A: if !scripted { events.append(.key(.action(.submit))) }
            case 0x21...0x7E: events.append(.key(.label(Character(Unicode.Scalar(byte)))))
            default: break
            }
        }
        if endOfChunk && pendingEscape {
            pendingEscape = false
            events.append(.key(.action(.cancel)))
        }
        return events
    }
}
