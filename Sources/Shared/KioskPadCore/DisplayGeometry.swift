/// Columns x rows of a text display: 16x2 and 20x4 LCDs, or a terminal panel.
public struct DisplayGeometry: Equatable, Sendable, CustomStringConvertible {
    public static let lcd1602 = DisplayGeometry(columns: 16, rows: 2)
    public static let lcd2004 = DisplayGeometry(columns: 20, rows: 4)
    /// The range of columns and rows a frame may have.
    public static let columnRange = 8...80
    public static let rowRange = 2...8

    public let columns: Int
    public let rows: Int

    public init(columns: Int, rows: Int) {
        precondition(DisplayGeometry.columnRange.contains(columns) && DisplayGeometry.rowRange.contains(rows))
        self.columns = columns
        self.rows = rows
    }

    public var description: String { "\(columns)x\(rows)" }
}

/// The words a terminal shows; every one is configurable under `display.texts`.
public struct DisplayTexts: Equatable, Sendable {
    public var title = "KioskPad"
    public var enterPIN = "Enter PIN"
    public var enterCode = "Enter code"
    /// Asks for the PIN after a card at a door that wants both.
    public var cardPIN = "Card read: PIN"
    /// Choosing a PIN at the door: the enrolment code, the new PIN, the same again.
    public var enrolCode = "Enrolment code"
    public var newPIN = "New PIN"
    public var repeatPIN = "New PIN again"
    /// The new PIN was too easy (one digit throughout, a run), or the two entries differed.
    public var weakPIN = "Too easy, again"
    public var pinsDiffer = "PINs differ"
    /// The site's answers: set; the code unknown, used or expired; the user's PIN now.
    public var pinSet = "PIN set"
    public var codeInvalid = "Code not valid"
    public var previousPIN = "Not the old PIN"
    /// The site learned the card just read for a user (a door armed from the console); the door stays shut.
    public var cardLearned = "Card learned"
    /// `{code}` is replaced with the challenge code.
    public var challenge = "Type {code}"
    public var verifying = "Verifying..."
    public var granted = "Access granted"
    public var denied = "Access denied"
    public var unavailable = "Verifier unavailable"
    /// `{s}` is replaced with the seconds left.
    public var locked = "Locked {s}s"
    public var lockedHint = "Too many tries"
    public var help = "Forgot PIN? Ask reception"
    /// Key hint on the last row of displays with 4 or more rows; empty to hide.
    public var hint = "#=OK *=Delete"
    /// Shown instead of the prompt while the case tamper switch is tripped.
    public var tamper = "Tamper alarm"
    /// Shown instead of the prompt while the door is in lockdown (only responders enter).
    public var lockdown = "Lockdown"
    /// Shown instead of the prompt while the door is released (held unlocked).
    public var released = "Door released"

    public init() {}

    /// Each text's key under `display.texts` in a door's config, and its field: what the
    /// door's config reader reads and what a site may set for its adopted doors.
    public static var configKeys: [(key: String, field: WritableKeyPath<DisplayTexts, String>)] {
        [
            ("title", \.title), ("enter_pin", \.enterPIN), ("enter_code", \.enterCode),
            ("challenge", \.challenge), ("verifying", \.verifying), ("granted", \.granted),
            ("denied", \.denied), ("unavailable", \.unavailable), ("locked", \.locked),
            ("locked_hint", \.lockedHint), ("help", \.help), ("hint", \.hint),
            ("tamper", \.tamper), ("lockdown", \.lockdown), ("released", \.released), ("card_pin", \.cardPIN),
            ("enrol_code", \.enrolCode), ("new_pin", \.newPIN), ("repeat_pin", \.repeatPIN), ("weak_pin", \.weakPIN),
            ("pins_differ", \.pinsDiffer), ("pin_set", \.pinSet), ("code_invalid", \.codeInvalid), ("previous_pin", \.previousPIN),
            ("card_learned", \.cardLearned),
        ]
    }
}

/// How a frame should be styled where a display can (colour on a terminal).
public enum FrameStyle: Equatable, Sendable {
    case normal
    case busy
    case granted
    case denied
    case warning
}

/// One screenful: exactly `geometry.rows` rows of exactly `geometry.columns` characters.
public struct Frame: Equatable, Sendable {
    public var rows: [String]
    public var style: FrameStyle
    /// False while the backlight has timed out (`display.backlight_timeout_s`); a display
    /// with a backlight switches it, the others ignore it.
    public var backlight: Bool

    public init(rows: [String], style: FrameStyle = .normal, backlight: Bool = true) {
        self.rows = rows
        self.style = style
        self.backlight = backlight
    }

    /// The rows with trailing blanks removed, joined by newlines.
    public var text: String {
        rows.map { String($0.reversed().drop { $0 == " " }.reversed()) }.joined(separator: "\n")
    }
}
