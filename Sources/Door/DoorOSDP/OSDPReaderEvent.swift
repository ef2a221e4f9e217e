import KioskPadCore

/// A card a reader read, as its reply carried it. Never printed: ``description`` hides it.
public struct OSDPCard: Sendable, Equatable, CustomStringConvertible {
    /// osdp_RAW's format: 0 unspecified, 1 Wiegand; nil for osdp_FMT (ASCII digits).
    public let rawFormat: UInt8?
    /// The number of bits (osdp_RAW) or characters (osdp_FMT).
    public let bits: Int
    let data: [UInt8]

    public init(rawFormat: UInt8?, bits: Int, data: [UInt8]) {
        self.rawFormat = rawFormat
        self.bits = bits
        self.data = data
    }

    public var description: String { "<card of \(bits) \(rawFormat == nil ? "characters" : "bits")>" }
}

/// What a reader's session reports to the door: keys and cards, whether it can be used, and
/// its supervision (offline, tamper, power). Never carries a key or a card number in text.
public enum OSDPReaderEvent: Sendable, Equatable {
    /// The reader answers and is ready: through the Secure Channel when it has a key.
    case online(secure: Bool)
    /// The reader gave no valid reply for the offline time, or its session was dropped.
    case offline
    /// Keys typed at the reader, as osdp_KEYPAD sent them (ASCII digits, 0x7F `*`, 0x0D `#`).
    case keys([UInt8])
    case card(OSDPCard)
    /// The reader's tamper switch (osdp_LSTATR).
    case tamper(active: Bool)
    /// The reader's power (osdp_LSTATR): `ok` false is a power failure it reported.
    case power(ok: Bool)
    /// The reader is not used: `clear_text` (configured as secure, it answered without the
    /// Secure Channel), `key` (its cryptogram does not match the configured key), `no_secure_channel`
    /// (it refused the handshake), `mac` (a secure reply failed its MAC).
    case refused(reason: String)
    /// A reader refused a command (osdp_NAK and its error code).
    case nak(code: UInt8)
    /// A message was dropped: a ``OSDPFrameError`` reason, or `sequence`, `address`,
    /// `unknown_reply`, `reply_length`.
    case dropped(reason: String)
    /// The reader took the new key sent by `kioskpad osdp keyset`.
    case keySetAccepted
}

/// A command waiting for its turn: the LED, buzzer, text and key-set commands the door sends
/// between polls.
public struct OSDPOutgoing: Sendable, Equatable {
    public let command: OSDPCommand
    public let data: [UInt8]

    public init(_ command: OSDPCommand, _ data: [UInt8]) {
        self.command = command
        self.data = data
    }

    /// A temporary LED state on LED 0 of reader 0: `color` (0 off, 1 red, 2 green, 3 amber,
    /// 4 blue), on and off times in 100 ms units (off 0: steady), for `tenths` of a second;
    /// the permanent state is left as it is.
    public static func led(color: UInt8, onTenths: UInt8, offTenths: UInt8, forTenths tenths: UInt16) -> OSDPOutgoing {
        OSDPOutgoing(
            .led,
            [0, 0, 2, onTenths, offTenths, color, 0, UInt8(tenths & 0xFF), UInt8(tenths >> 8), 0, 0, 0, 0, 0])
    }

    /// The buzzer of reader 0: the default tone `count` times, on and off in 100 ms units.
    public static func buzzer(onTenths: UInt8, offTenths: UInt8, count: UInt8) -> OSDPOutgoing {
        OSDPOutgoing(.buzzer, [0, 2, onTenths, offTenths, count])
    }

    /// Text on the reader's panel: permanent, no wrap, at `row` (1-based) and column 1.
    public static func text(_ text: String, row: UInt8) -> OSDPOutgoing {
        let bytes = Array(text.unicodeScalars.map { $0.isASCII ? UInt8($0.value) : UInt8(ascii: "?") }.prefix(32))
        return OSDPOutgoing(.text, [0, 1, 0, row, 1, UInt8(bytes.count)] + bytes)
    }

    /// A new Secure Channel base key (type 1, 16 bytes); sent only through the Secure Channel.
    public static func keySet(_ key: OSDPKey) -> OSDPOutgoing {
        OSDPOutgoing(.keySet, [1, 16] + key.bytes)
    }
}
