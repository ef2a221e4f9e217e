import Crypto
import Foundation

/// Pairing's password-authenticated key exchange: ``CPace`` on the pairing code's eight
/// secret digits, the door the initiator, the site the responder.
///
/// - PRS: the secret digits. CI: the door's X25519 key (so the exchange is bound to the key
///   the delivery is sealed to). sid: 16 random bytes the door draws for the announcement.
/// - MSGa (in the announcement): the door's share and ADa, the protocol's version.
/// - MSGb (in the delivery): the site's share and ADb, the announcement's id and the nonce the
///   site gave it.
/// - The delivery's HPKE pre-shared key is HKDF-SHA256 of the ISK (``PairingSeal``).
///
/// Whoever holds one message, both, the delivery or the key it is sealed to, but not the
/// door's or the site's scalar, has nothing to test a guess of the digits against: the only
/// test is a live exchange (a delivery the door tries to open, a code typed at the site), and
/// each side ends the announcement after ``maxFailedExchanges``.
public enum PairingExchange {
    /// ADa: the exchange's version, refused by a site that speaks another.
    public static let doorAssociatedData = Data("kioskpad pairing v2".utf8)
    /// Deliveries that did not open before an announcement ends, on each side.
    public static let maxFailedExchanges = 3
    static let sidBytes = 16

    /// The door's half, made before it announces: the scalar stays in this value (memory
    /// only); `message` and `sid` go in the announcement.
    public struct DoorHalf: Sendable {
        let scalar: Data
        let doorKey: Data
        public let sid: Data
        /// MSGa.
        public let message: Data
    }

    static func channel(doorKey: Data) -> Data {
        CPace.prefixFreeCat([Data("kioskpad door key".utf8), doorKey])
    }

    static func siteAssociatedData(announcement: String, nonce: Data) -> Data {
        CPace.prefixFreeCat([Data(announcement.utf8), nonce])
    }

    /// The door's half for the code's `secret` digits and its X25519 key `doorKey`.
    public static func doorHalf(secret: String, doorKey: Data) throws -> DoorHalf {
        var random = SystemRandomNumberGenerator()
        let sid = Data((0..<sidBytes).map { _ in random.next() as UInt8 })
        let generator = try CPace.generator(prs: Data(secret.utf8), ci: channel(doorKey: doorKey), sid: sid)
        let scalar = try CPace.sampleScalar()
        guard let share = try CPace.scalarMultVerify(scalar, generator) else { throw CPace.Failure.invalidShare }
        return DoorHalf(scalar: scalar, doorKey: doorKey, sid: sid, message: CPace.message(share: share, associatedData: doorAssociatedData))
    }

    /// Whether an announcement's `message` and `sid` can be answered: a message of this
    /// version with a 32-byte share, and a 16-byte sid. The text names what is wrong.
    public static func announcementProblem(message: Data, sid: Data) -> String? {
        guard sid.count == sidBytes else { return "pake_sid: must be base64 of \(sidBytes) bytes" }
        guard let (_, associatedData) = try? CPace.parseMessage(message) else {
            return "pake_message: must be base64 of the door's CPace message (a 32-byte share and its associated data)"
        }
        guard associatedData == doorAssociatedData else {
            return "pake_message: made by another pairing version; this site speaks '\(String(decoding: doorAssociatedData, as: UTF8.self))'"
        }
        return nil
    }

    /// The site's half, once a code was typed: MSGb, and the key the delivery is sealed with.
    /// ``CPace/Failure/invalidShare`` when the door's share is not a valid element.
    public static func siteHalf(
        doorMessage: Data, sid: Data, doorKey: Data, secret: String, announcement: String, nonce: Data
    ) throws -> (message: Data, key: SymmetricKey) {
        let generator = try CPace.generator(prs: Data(secret.utf8), ci: channel(doorKey: doorKey), sid: sid)
        let scalar = try CPace.sampleScalar()
        guard let share = try CPace.scalarMultVerify(scalar, generator) else { throw CPace.Failure.invalidShare }
        let message = CPace.message(share: share, associatedData: siteAssociatedData(announcement: announcement, nonce: nonce))
        let isk = try CPace.finish(scalar: scalar, peerMessage: doorMessage, sid: sid, initiatorMessage: doorMessage, responderMessage: message)
        return (message, sealingKey(isk))
    }

    /// The door's key from the site's `message`: the same as the site's only when the site
    /// was given this door's digits. The site's ADb must name this announcement.
    public static func doorKey(_ half: DoorHalf, siteMessage: Data, announcement: String, nonce: Data) throws -> SymmetricKey {
        let (_, associatedData) = try CPace.parseMessage(siteMessage)
        guard associatedData == siteAssociatedData(announcement: announcement, nonce: nonce) else { throw CPace.Failure.malformedMessage }
        let isk = try CPace.finish(scalar: half.scalar, peerMessage: siteMessage, sid: half.sid, initiatorMessage: half.message, responderMessage: siteMessage)
        return sealingKey(isk)
    }

    /// The ISK through HKDF-SHA256 (the draft recommends a KDF before use): 32 bytes.
    static func sealingKey(_ isk: Data) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: isk), info: Data("kioskpad pairing psk v2".utf8), outputByteCount: 32)
    }
}
