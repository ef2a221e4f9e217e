import KeypadHAL
import KioskPadConfig
import KioskPadCore
import KioskPadEndpoints

/// A validated configuration: everything the controller needs to wire a terminal.
public struct KioskPadConfiguration: Sendable {
    public var terminalID: String
    public var entry: EntryOptions
    public var display: DisplayConfiguration
    public var keypad: KeypadConfiguration
    /// `card_reader:`, a USB card reader beside the keypad; nil when there is none.
    public var cardReader: CardReaderConfiguration?
    /// `site:` without `verifier:`: a door adopted by its site (paired or not yet); nil for a
    /// door configured by hand.
    public var site: DoorSite?
    /// The site's replica key given at install (`site_key`): only the site signing with it may adopt the door.
    public var siteKey: String?
    /// The settings from its site laid under the file (only for a door adopted by its site).
    public var siteSettings: SiteSettings?
    /// The settings version from the site it runs (0: none).
    public var siteSettingsVersion: Int64 { siteSettings?.version ?? 0 }
    public var verifier: VerifierConfiguration
    public var daemon: DaemonConfiguration

    public init(
        terminalID: String, entry: EntryOptions, display: DisplayConfiguration,
        keypad: KeypadConfiguration, verifier: VerifierConfiguration, daemon: DaemonConfiguration = DaemonConfiguration()
    ) {
        self.terminalID = terminalID
        self.entry = entry
        self.display = display
        self.keypad = keypad
        self.verifier = verifier
        self.daemon = daemon
    }

    /// `kioskpad simulate` with no file: 4-digit masked PIN, keyboard, terminal panel,
    /// built-in demo verifier.
    public static func simulatedDefault(display driver: DisplayDriverKind = .ansi) -> KioskPadConfiguration {
        KioskPadConfiguration(
            terminalID: "simulator", entry: EntryOptions(),
            display: DisplayConfiguration(driver: driver, geometry: .lcd2004),
            keypad: KeypadConfiguration(driver: .terminal, gpio: nil),
            verifier: .demo)
    }
}

/// Which display driver shows frames.
public enum DisplayDriverKind: String, Sendable, CaseIterable {
    case ansi
    case plain
    case hd44780
    /// The text panel of the OSDP readers (`keypad.driver: osdp`), through osdp_TEXT.
    case osdp
}

/// `display:` - driver, geometry, mask character, texts and (for an LCD) the I2C bus.
public struct DisplayConfiguration: Sendable {
    public var driver: DisplayDriverKind
    public var geometry: DisplayGeometry
    public var maskCharacter: Character
    /// `char`: slots show `mask_char`; `dot`: a filled dot (a custom glyph on an LCD).
    public var maskGlyph: MaskGlyph
    public var texts: DisplayTexts
    public var i2c: I2CDisplayConfiguration?
    /// `display.backlight_timeout_s` (hd44780): dark after this long idle; nil: always lit.
    public var backlightTimeout: Duration?

    public init(
        driver: DisplayDriverKind, geometry: DisplayGeometry, maskCharacter: Character = "*",
        maskGlyph: MaskGlyph = .char, texts: DisplayTexts = DisplayTexts(), i2c: I2CDisplayConfiguration? = nil
    ) {
        self.driver = driver
        self.geometry = geometry
        self.maskCharacter = maskCharacter
        self.maskGlyph = maskGlyph
        self.texts = texts
        self.i2c = i2c
    }
}

/// What a masked slot looks like.
public enum MaskGlyph: String, Sendable, CaseIterable {
    case char
    case dot
}

/// Where an HD44780 LCD's PCF8574 backpack sits (`/dev/i2c-<bus>`, 7-bit address) and how
/// its pins are wired.
public struct I2CDisplayConfiguration: Equatable, Sendable {
    /// PCF8574 pins in `pin_map` order: rs, rw, e, backlight, d4, d5, d6, d7.
    public static let pinNames = ["rs", "rw", "e", "backlight", "d4", "d5", "d6", "d7"]
    public static let standardPins = [0, 1, 2, 3, 4, 5, 6, 7]

    public var bus: Int
    public var address: Int
    public var backlight: Bool
    public var pins: [Int]

    public init(bus: Int, address: Int, backlight: Bool, pins: [Int] = I2CDisplayConfiguration.standardPins) {
        self.bus = bus
        self.address = address
        self.backlight = backlight
        self.pins = pins
    }
}

/// Which key source feeds the entry model.
public enum KeypadDriverKind: String, Sendable, CaseIterable {
    case terminal
    case gpio
    /// A kernel input device: a USB numeric keypad or keyboard, gpio-matrix-keypad.
    case evdev
    /// A Wiegand keypad on two GPIO inputs (D0, D1).
    case wiegand
    /// OSDP readers (SIA OSDP v2.2) on an RS-485 serial line.
    case osdp
}

/// `keypad:` - the key source and, for a GPIO matrix, its wiring.
public struct KeypadConfiguration: Sendable {
    public var driver: KeypadDriverKind
    public var gpio: GPIOKeypadConfiguration?
    public var evdev: EvdevKeypadConfiguration?
    public var wiegand: WiegandKeypadConfiguration?
    public var osdp: OSDPKeypadConfiguration?

    public init(
        driver: KeypadDriverKind, gpio: GPIOKeypadConfiguration?, evdev: EvdevKeypadConfiguration? = nil,
        wiegand: WiegandKeypadConfiguration? = nil, osdp: OSDPKeypadConfiguration? = nil
    ) {
        self.driver = driver
        self.gpio = gpio
        self.evdev = evdev
        self.wiegand = wiegand
        self.osdp = osdp
    }
}

/// `driver: osdp`: the serial line (a USB RS-485 adapter or a UART with an RS-485 transceiver)
/// and the readers on it, each by address, with the file of its Secure Channel key.
public struct OSDPKeypadConfiguration: Equatable, Sendable {
    /// `keypad.device`: `/dev/ttyUSB0`, `/dev/ttyAMA0`, `/dev/serial/by-id/...`.
    public var device: String
    /// `keypad.baud`: 9600 (every reader's default), 19200, 38400, 57600, 115200 or 230400.
    public var baud: Int
    public var readers: [OSDPReaderConfiguration]
    /// `keypad.poll_ms`: a poll cycle starts this often.
    public var pollInterval: Duration
    /// `keypad.offline_s`: no valid reply for this long makes a reader offline.
    public var offlineAfter: Duration

    public init(
        device: String, baud: Int = 9600, readers: [OSDPReaderConfiguration], pollInterval: Duration = .milliseconds(50),
        offlineAfter: Duration = .seconds(8)
    ) {
        self.device = device
        self.baud = baud
        self.readers = readers
        self.pollInterval = pollInterval
        self.offlineAfter = offlineAfter
    }
}

/// One OSDP reader: `address` 0...126 and `scbk_file` (32 hex digits; none: the reader is used
/// in the clear).
public struct OSDPReaderConfiguration: Equatable, Sendable {
    public var address: Int
    public var scbkFile: String?

    public init(address: Int, scbkFile: String?) {
        self.address = address
        self.scbkFile = scbkFile
    }
}

/// `driver: wiegand`: the chip and the two data lines of a Wiegand keypad, and the silence
/// that ends a frame.
public struct WiegandKeypadConfiguration: Equatable, Sendable {
    public var chip: String
    public var d0: LineReference
    public var d1: LineReference
    /// `keypad.frame_gap_ms`: no pulse for this long ends a frame.
    public var frameGap: Duration
    /// `keypad.long_frames`: what a 26- or 34-bit frame is.
    public var longFrames: WiegandLongFrames

    public init(
        chip: String, d0: LineReference, d1: LineReference, frameGap: Duration = .milliseconds(25),
        longFrames: WiegandLongFrames = .pin
    ) {
        self.chip = chip
        self.d0 = d0
        self.d1 = d1
        self.frameGap = frameGap
        self.longFrames = longFrames
    }
}

/// `driver: evdev`: which input device, and key codes mapped to labels beyond the standard map.
public struct EvdevKeypadConfiguration: Equatable, Sendable {
    /// A path (`/dev/input/by-id/...-event-kbd`) or `name:TEXT`.
    public var device: String
    /// `keypad.key_map`: key code -> label (`KEY_F1: "A"`).
    public var keyMap: [UInt16: Character]

    public init(device: String, keyMap: [UInt16: Character] = [:]) {
        self.device = device
        self.keyMap = keyMap
    }
}

/// A matrix keypad on GPIO lines (rows driven, columns read with pull-ups).
public struct GPIOKeypadConfiguration: Equatable, Sendable {
    public var chip: String
    public var rows: [LineReference]
    public var columns: [LineReference]
    /// Labels row by row, e.g. `123A456B789C*0#D`.
    public var keys: [Character]
    public var activeLow: Bool
    public var hasDiodes: Bool
    public var settle: Duration
    public var debouncePress: Duration
    public var debounceRelease: Duration
    public var hold: Duration
    public var stuck: Duration

    public init(
        chip: String, rows: [LineReference], columns: [LineReference], keys: [Character],
        activeLow: Bool = true, hasDiodes: Bool = false, settle: Duration = .microseconds(50),
        debouncePress: Duration = .milliseconds(10), debounceRelease: Duration = .milliseconds(10),
        hold: Duration = .seconds(1), stuck: Duration = .seconds(30)
    ) {
        self.chip = chip
        self.rows = rows
        self.columns = columns
        self.keys = keys
        self.activeLow = activeLow
        self.hasDiodes = hasDiodes
        self.settle = settle
        self.debouncePress = debouncePress
        self.debounceRelease = debounceRelease
        self.hold = hold
        self.stuck = stuck
    }
}

/// `verifier:` - who decides.
public enum VerifierConfiguration: Equatable, Sendable {
    /// Built-in demo user with PIN 1234; simulated mode only.
    case demo
    /// A users file of salted slow hashes on this terminal.
    case local(usersFile: String)
    /// An HTTP(S) endpoint (docs/protocol.md).
    case http(HTTPVerifierConfiguration)
}

/// `verifier:` with `kind: http`.
public struct HTTPVerifierConfiguration: Equatable, Sendable {
    public var url: String
    /// `verifier.urls` after the first: the same site's other addresses, tried in order.
    public var otherURLs: [String] = []
    public var timeout: Duration
    public var secret: SecretSource?
    public var token: SecretSource?
    public var caFile: String?
    public var clientCertificate: String?
    public var clientKey: String?
    public var allowInsecureHTTP: Bool
    public var maxUnlockSeconds: Int
    /// `verifier.offline` with `mode: fallback`; nil when off.
    public var offline: OfflineConfiguration?

    public init(
        url: String, timeout: Duration = .seconds(3), secret: SecretSource? = nil, token: SecretSource? = nil,
        caFile: String? = nil, clientCertificate: String? = nil, clientKey: String? = nil,
        allowInsecureHTTP: Bool = false, maxUnlockSeconds: Int = 30
    ) {
        self.url = url
        self.timeout = timeout
        self.secret = secret
        self.token = token
        self.caFile = caFile
        self.clientCertificate = clientCertificate
        self.clientKey = clientKey
        self.allowInsecureHTTP = allowInsecureHTTP
        self.maxUnlockSeconds = maxUnlockSeconds
    }

    /// Every address, `url` first.
    public var urls: [String] { [url] + otherURLs }
}
