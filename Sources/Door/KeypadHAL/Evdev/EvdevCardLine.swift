import KioskPadCore

/// A USB card reader that types (a "keyboard wedge": most 125 kHz and 13.56 MHz desk and
/// door readers): it types a card's number as digits and then Enter, all within a few tens of
/// milliseconds. This gathers those digits into one card. A line of fewer than
/// ``digits``'s lower bound or more than its upper bound is dropped; a pause of more than
/// ``gap`` between two keys starts the line over (a half line from a glitch never prefixes the
/// next card). Keys other than digits and Enter are ignored. The digits live in one fixed
/// ``DigitBuffer``, wiped when the line ends either way. Used by one thread only.
public final class EvdevCardLine {
    /// How many digits make a card: 4 (the shortest number a reader is set to type) to 20
    /// (a 64-bit card number in decimal).
    public static let digits = 4...20
    /// The longest pause between two keys of one card.
    public static let gap: Duration = .milliseconds(500)

    /// What one key did to the line.
    public enum Outcome {
        /// Enter ended a line of a card's length: the card, to submit.
        case card(SecretDigits)
        /// Enter ended a line that is no card: how many digits it had (never which).
        case dropped(digits: Int)
    }

    private let buffer = DigitBuffer(capacity: EvdevCardLine.digits.upperBound)
    private var typed = 0
    private var last: ContinuousClock.Instant?

    public init() {}

    /// Feeds one key typed at `now`; the card or the dropped line when it was Enter.
    public func feed(_ key: KeyInput, at now: ContinuousClock.Instant) -> Outcome? {
        if let last, now - last > EvdevCardLine.gap { reset() }
        last = now
        switch key {
        case .label(let label):
            guard let value = label.wholeNumberValue, label.isASCII else { return nil }
            typed += 1
            buffer.append(UInt8(value))  // past 20 digits the buffer keeps 20 and `typed` counts on
            return nil
        case .action(.submit):
            defer { reset() }
            guard EvdevCardLine.digits.contains(typed) else { return typed == 0 ? nil : .dropped(digits: typed) }
            return .card(buffer.take())
        default:
            return nil
        }
    }

    /// True when no digit is held (tests check the wipe with this).
    public var isEmpty: Bool { typed == 0 && buffer.isZeroed }

    private func reset() {
        buffer.wipe()
        typed = 0
    }
}
