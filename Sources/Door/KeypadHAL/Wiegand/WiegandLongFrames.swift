/// What a Wiegand keypad's 26- or 34-bit frame is (`keypad.long_frames`): a whole PIN typed
/// at once on the keypad (`pin`), or a card number from a card reader (`card`, sent to the
/// verifier as an attempt of kind `card`).
public enum WiegandLongFrames: String, Sendable, CaseIterable {
    case pin
    case card

    /// The digits a card's data bits are sent as: zero-padded to the widest number the frame
    /// can carry (8 for 26 bits, 10 for 34), so one card always gives one value.
    public static func cardDigits(bits: Int) -> Int {
        bits == 26 ? 8 : 10
    }
}
