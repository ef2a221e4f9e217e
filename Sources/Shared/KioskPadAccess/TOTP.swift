import Crypto
import Foundation
import KioskPadCore

/// RFC 6238 time-based one-time passwords (HMAC-SHA-1, 30 s steps).
public struct TOTP: Sendable {
    public let secret: [UInt8]
    public let digits: Int
    public let period: Int

    public init(secret: [UInt8], digits: Int = 6, period: Int = 30) {
        self.secret = secret
        self.digits = digits
        self.period = period
    }

    /// The time step containing unix time `seconds`.
    public func step(at seconds: Int) -> Int { seconds / period }

    /// The code for time step `step`, zero-padded to `digits`.
    public func code(step: Int) -> String {
        var counter = UInt64(step).bigEndian
        let message = withUnsafeBytes(of: &counter) { Array($0) }
        let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: SymmetricKey(data: secret)))
        let offset = Int(mac[mac.count - 1] & 0x0F)
        let binary = (UInt32(mac[offset] & 0x7F) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8) | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let value = String(binary % modulus)
        return String(repeating: "0", count: digits - value.count) + value
    }

    /// The step among now-1...now+1 whose code equals `candidate` (constant-time per step), or nil.
    public func matchingStep(_ candidate: [UInt8], at seconds: Int, window: Int = 1) -> Int? {
        let now = step(at: seconds)
        var found: Int?
        for step in (now - window)...(now + window) where ConstantTime.equal(Array(code(step: step).utf8), candidate) {
            found = step
        }
        return found
    }

    /// Decodes RFC 4648 base32 (the usual authenticator-app secret format).
    public static func base32Decode(_ text: String) -> [UInt8]? {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        var bits = 0
        var value = 0
        var bytes: [UInt8] = []
        for character in text.uppercased() where character != "=" && character != " " {
            guard let index = alphabet.firstIndex(of: character) else { return nil }
            value = (value << 5) | index
            bits += 5
            if bits >= 8 {
                bytes.append(UInt8((value >> (bits - 8)) & 0xFF))
                bits -= 8
            }
        }
        return bytes.isEmpty ? nil : bytes
    }

    /// A new random 160-bit secret (RFC 4226's recommended length).
    public static func newSecret() -> [UInt8] {
        SymmetricKey(size: SymmetricKeySize(bitCount: 160)).withUnsafeBytes { Array($0) }
    }

    /// RFC 4648 base32 without padding (as authenticator apps and `:totp=` take it).
    public static func base32Encode(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        var text = ""
        var bits = 0
        var value = 0
        for byte in bytes {
            value = (value << 8 | Int(byte)) & 0xFFFF
            bits += 8
            while bits >= 5 {
                text.append(alphabet[(value >> (bits - 5)) & 31])
                bits -= 5
            }
        }
        if bits > 0 { text.append(alphabet[(value << (5 - bits)) & 31]) }
        return text
    }

    /// The `otpauth://` URI an authenticator app enrols from (a QR code of it, or typed).
    public func provisioningURI(account: String, issuer: String) -> String {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        let escape = { (text: String) in text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text }
        return
            "otpauth://totp/\(escape(issuer)):\(escape(account))?secret=\(TOTP.base32Encode(secret))&issuer=\(escape(issuer))&algorithm=SHA1&digits=\(digits)&period=\(period)"
    }
}
