import Crypto
import Foundation

/// What the site sends a door it adopts, sealed to the door's key: HPKE (RFC 9180) in its
/// pre-shared-key mode, X25519, HKDF-SHA256 and ChaCha20-Poly1305. The pre-shared key is
/// the code's secret digits, stretched; the `info` binds the announcement's id and the door's
/// key. So only the door that made the key opens it (not an observer on the network), and it
/// opens only when the site was given the door's code (a rogue site, or a wrong code, fails).
public enum PairingSeal {
    static let suite = HPKE.Ciphersuite.Curve25519_SHA256_ChachaPoly
    static let pskID = Data("kioskpad pairing v1".utf8)

    /// The sealed bundle: HPKE's encapsulated key and the ciphertext, both base64 on the wire.
    public struct Sealed: Sendable, Equatable, Codable {
        public let encapsulatedKey: String
        public let ciphertext: String

        enum CodingKeys: String, CodingKey {
            case encapsulatedKey = "encapsulated_key"
            case ciphertext
        }

        public init(encapsulatedKey: String, ciphertext: String) {
            self.encapsulatedKey = encapsulatedKey
            self.ciphertext = ciphertext
        }
    }

    /// Why a delivery did not open.
    public enum OpenError: Error, Equatable, CustomStringConvertible {
        /// Not base64, or not a key.
        case malformed
        /// The code's secret digits differ from the door's (or the delivery was not for this
        /// door): nothing in it is used.
        case wrongCode

        public var description: String {
            switch self {
            case .malformed: "the delivery is malformed"
            case .wrongCode: "the delivery did not open: the code typed at the site was not this door's"
            }
        }
    }

    static func info(announcement: String, doorKey: Data) -> Data {
        Data("kioskpad pairing delivery v1\n\(announcement)\n".utf8) + doorKey
    }

    static func psk(_ secret: String, nonce: Data) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Data(secret.utf8)), salt: nonce, info: Data("kioskpad pairing psk v1".utf8), outputByteCount: 32)
    }

    /// Seals `plaintext` for the door whose raw X25519 public key is `doorKey`, with the code's
    /// secret digits as the site was given them.
    public static func seal(_ plaintext: Data, doorKey: Data, secret: String, announcement: String, nonce: Data) throws -> Sealed {
        let key = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: doorKey)
        var sender = try HPKE.Sender(
            recipientKey: key, ciphersuite: suite, info: info(announcement: announcement, doorKey: doorKey),
            presharedKey: psk(secret, nonce: nonce), presharedKeyIdentifier: pskID)
        let ciphertext = try sender.seal(plaintext)
        return Sealed(encapsulatedKey: sender.encapsulatedKey.base64EncodedString(), ciphertext: ciphertext.base64EncodedString())
    }

    /// Opens a delivery with the door's private key and its code.
    public static func open(
        _ sealed: Sealed, privateKey: Curve25519.KeyAgreement.PrivateKey, code: PairingCode, announcement: String, nonce: Data
    ) throws -> Data {
        guard let encapsulated = Data(base64Encoded: sealed.encapsulatedKey), let ciphertext = Data(base64Encoded: sealed.ciphertext) else {
            throw OpenError.malformed
        }
        let doorKey = privateKey.publicKey.rawRepresentation
        do {
            var recipient = try HPKE.Recipient(
                privateKey: privateKey, ciphersuite: suite, info: info(announcement: announcement, doorKey: doorKey),
                encapsulatedKey: encapsulated, presharedKey: psk(code.secret, nonce: nonce), presharedKeyIdentifier: pskID)
            return try recipient.open(ciphertext)
        } catch {
            throw OpenError.wrongCode
        }
    }
}
