import Crypto
import Foundation

/// The code an unpaired door shows on its own display, which an administrator types into the
/// site to adopt it: twelve digits, shown as `SSSS-XXXX-XXXX`.
///
/// - The first four, the **tag**, are derived from the door's public key and the nonce the
///   site gave its announcement: they pick the waiting door out of the site's list. A tag is
///   public (anyone who saw the announcement can compute it).
/// - The last eight, the **secret**, are drawn by the door and never leave it, in clear or
///   in a form one could test a guess against: the door and the site run a password-
///   authenticated exchange on them (``PairingExchange``) and the site seals the door's secrets
///   to the door's key with its result (``PairingSeal``), so only a door whose code was typed
///   can open the delivery, and a delivery the door opens came from the site the code was
///   typed into.
public struct PairingCode: Sendable, Equatable, CustomStringConvertible {
    /// The four digits that name the waiting door.
    public let tag: String
    /// The eight digits known only to the door and to whoever read its display.
    public let secret: String

    public static let tagDigits = 4
    public static let secretDigits = 8

    public init(tag: String, secret: String) {
        self.tag = tag
        self.secret = secret
    }

    /// Eight new secret digits (the door draws them before it announces: its half of the
    /// exchange is made from them).
    public static func drawSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<secretDigits).map { _ in String(generator.next(upperBound: UInt8(10))) }.joined()
    }

    /// The code for a door whose public key is `doorKey`, whose announcement got `nonce`, with
    /// `secret` (new digits unless given).
    public static func make(doorKey: Data, nonce: Data, secret: String = drawSecret()) -> PairingCode {
        PairingCode(tag: tag(doorKey: doorKey, nonce: nonce), secret: secret)
    }

    /// The tag of a door's announcement: SHA-256 of a label, the key and the nonce, as four
    /// decimal digits.
    public static func tag(doorKey: Data, nonce: Data) -> String {
        var hash = SHA256()
        hash.update(data: Data("kioskpad pairing tag v1".utf8))
        hash.update(data: doorKey)
        hash.update(data: nonce)
        let value = hash.finalize().prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let text = String(value % 10_000)
        return String(repeating: "0", count: tagDigits - text.count) + text
    }

    /// A code as typed: twelve digits, with any spaces or dashes between them.
    public init?(typed text: String) {
        let digits = text.filter { $0 != " " && $0 != "-" }
        guard digits.count == Self.tagDigits + Self.secretDigits, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        self.init(tag: String(digits.prefix(Self.tagDigits)), secret: String(digits.dropFirst(Self.tagDigits)))
    }

    /// `SSSS-XXXX-XXXX`: what the door's display and `kioskpad pair status` show.
    public var shown: String { "\(tag)-\(secret.prefix(4))-\(secret.dropFirst(4))" }

    /// Never the secret: logs and errors show the tag only.
    public var description: String { "pairing code \(tag)-****-****" }
}
