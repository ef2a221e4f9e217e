import Crypto
import Foundation

/// What the site sends a door it adopts, sealed to the door's key: HPKE (RFC 9180) in its
/// pre-shared-key mode, X25519, HKDF-SHA256 and ChaCha20-Poly1305. The pre-shared key comes
/// from the pairing exchange (``PairingExchange``: CPace on the code's secret digits), whose
/// site message travels beside the sealed bytes; the `info` binds the announcement's id and the
/// door's key. So only the door that made the key opens it (not an observer on the network),
/// it opens only when the site was given the door's code (a rogue site, or a wrong code,
/// fails), and nobody holding the delivery can test a guess of the digits offline.
public enum PairingSeal {
    static let suite = HPKE.Ciphersuite.Curve25519_SHA256_ChachaPoly
    static let pskID = Data("kioskpad pairing v2".utf8)

    /// The sealed bundle: the site's exchange message, HPKE's encapsulated key and the
    /// ciphertext, each base64 on the wire.
    public struct Sealed: Sendable, Equatable, Codable {
        public let siteMessage: String
        public let encapsulatedKey: String
        public let ciphertext: String

        enum CodingKeys: String, CodingKey {
            case siteMessage = "pake_message"
            case encapsulatedKey = "encapsulated_key"
            case ciphertext
        }

        public init(siteMessage: String, encapsulatedKey: String, ciphertext: String) {
            self.siteMessage = siteMessage
            self.encapsulatedKey = encapsulatedKey
            self.ciphertext = ciphertext
        }
    }

    /// Why a delivery did not open.
    public enum OpenError: Error, Equatable, CustomStringConvertible {
        /// Not base64, or not a key or an exchange message.
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
        Data("kioskpad pairing delivery v2\n\(announcement)\n".utf8) + doorKey
    }

    /// Seals `plaintext` for the waiting door whose raw X25519 public key is `doorKey` and
    /// whose announcement carried `doorMessage` and `sid`, with the code's secret digits as
    /// the site was given them. Throws ``CPace/Failure`` when the door's share is invalid or
    /// libsodium cannot be used.
    public static func seal(
        _ plaintext: Data, doorKey: Data, doorMessage: Data, sid: Data, secret: String, announcement: String, nonce: Data
    ) throws -> Sealed {
        let (message, psk) = try PairingExchange.siteHalf(
            doorMessage: doorMessage, sid: sid, doorKey: doorKey, secret: secret, announcement: announcement, nonce: nonce)
        let key = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: doorKey)
        var sender = try HPKE.Sender(
            recipientKey: key, ciphersuite: suite, info: info(announcement: announcement, doorKey: doorKey), presharedKey: psk,
            presharedKeyIdentifier: pskID)
        let ciphertext = try sender.seal(plaintext)
        return Sealed(
            siteMessage: message.base64EncodedString(), encapsulatedKey: sender.encapsulatedKey.base64EncodedString(),
            ciphertext: ciphertext.base64EncodedString())
    }

    /// Opens a delivery with the door's private key and its half of the exchange.
    public static func open(
        _ sealed: Sealed, privateKey: Curve25519.KeyAgreement.PrivateKey, half: PairingExchange.DoorHalf, announcement: String, nonce: Data
    ) throws -> Data {
        guard let message = Data(base64Encoded: sealed.siteMessage), let encapsulated = Data(base64Encoded: sealed.encapsulatedKey),
            let ciphertext = Data(base64Encoded: sealed.ciphertext)
        else { throw OpenError.malformed }
        let psk: SymmetricKey
        do {
            psk = try PairingExchange.doorKey(half, siteMessage: message, announcement: announcement, nonce: nonce)
        } catch CPace.Failure.invalidShare {
            throw OpenError.wrongCode
        } catch CPace.Failure.malformedMessage {
            throw OpenError.malformed
        }
        let doorKey = privateKey.publicKey.rawRepresentation
        do {
            var recipient = try HPKE.Recipient(
                privateKey: privateKey, ciphersuite: suite, info: info(announcement: announcement, doorKey: doorKey),
                encapsulatedKey: encapsulated, presharedKey: psk, presharedKeyIdentifier: pskID)
            return try recipient.open(ciphertext)
        } catch {
            throw OpenError.wrongCode
        }
    }
}
