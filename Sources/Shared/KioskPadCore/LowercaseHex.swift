/// Bytes as lowercase hex digits, two a byte (`0a1b...`), without `String(format:)`, which
/// goes through Foundation's formatting once a byte on the site server's decision path.
public enum LowercaseHex {
    public static func string<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
