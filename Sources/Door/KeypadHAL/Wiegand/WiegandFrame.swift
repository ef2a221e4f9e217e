/// One Wiegand frame, decoded: a key of a per-key keypad (4-bit, or 8-bit with its check
/// nibble), or a 26-bit / 34-bit frame's number (a whole PIN sent at once, or a card).
public enum WiegandFrame: Equatable, Sendable {
    /// A per-key frame: `0`-`9`, `*` (10), `#` (11), `A`-`D` (12-15).
    case key(Character)
    /// A 26-bit (8-bit facility, 16-bit number) or 34-bit (16 + 16) frame, parity checked.
    /// `data` is every bit between the two parity bits (24 or 32 bits).
    case number(bits: Int, data: UInt32)

    /// The labels of 4-bit key values 0...15.
    static let keyLabels: [Character] = Array("0123456789*#ABCD")

    /// Why a frame was dropped; `rawValue` is the journal's and the metric's `reason`.
    public enum Rejection: String, Error, Equatable, Sendable, CaseIterable {
        /// Not 4, 8, 26 or 34 bits: a lost or extra bit, noise, a truncated frame.
        case bitCount = "bit_count"
        /// A 26- or 34-bit frame whose leading even or trailing odd parity bit is wrong.
        case parity
        /// An 8-bit frame whose high nibble is not the low nibble inverted.
        case checkNibble = "check_nibble"
    }

    /// Decodes the bits of one frame, most significant (first sent) first.
    public static func decode(_ bits: [Bool]) -> Result<WiegandFrame, Rejection> {
        switch bits.count {
        case 4:
            return .success(.key(keyLabels[Int(value(bits[...]))]))
        case 8:
            let high = value(bits[0..<4])
            let low = value(bits[4..<8])
            guard high == ~low & 0xF else { return .failure(.checkNibble) }
            return .success(.key(keyLabels[Int(low)]))
        case 26, 34:
            // Leading bit: even parity over the first half; trailing bit: odd parity over the second.
            let half = bits.count / 2
            let leadingOnes = bits[0..<half].filter { $0 }.count
            let trailingOnes = bits[half...].filter { $0 }.count
            guard leadingOnes % 2 == 0, trailingOnes % 2 == 1 else { return .failure(.parity) }
            return .success(.number(bits: bits.count, data: value(bits[1..<(bits.count - 1)])))
        default:
            return .failure(.bitCount)
        }
    }

    private static func value(_ bits: ArraySlice<Bool>) -> UInt32 {
        bits.reduce(0) { $0 << 1 | ($1 ? 1 : 0) }
    }

    /// The bits of a frame with this 4-bit key value (for emulators and tests).
    public static func keyBits(_ value: Int, checked: Bool) -> [Bool] {
        let low = (0..<4).map { value >> (3 - $0) & 1 == 1 }
        return checked ? low.map { !$0 } + low : low
    }

    /// The bits of a 26-bit (`bits` 26, `data` < 2^24) or 34-bit frame with correct parity.
    public static func numberBits(_ data: UInt32, bits: Int) -> [Bool] {
        let width = bits - 2
        let payload = (0..<width).map { data >> UInt32(width - 1 - $0) & 1 == 1 }
        let half = width / 2
        let leading = payload[0..<half].filter { $0 }.count % 2 == 1
        let trailing = payload[half...].filter { $0 }.count % 2 == 0
        return [leading] + payload + [trailing]
    }
}
