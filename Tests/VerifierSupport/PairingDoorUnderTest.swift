import Crypto
import Foundation
import KioskPadAccess
import SiteCore

/// A door waiting to be adopted, as a test makes it instead of `kioskpad pair`: its X25519
/// key, its code's secret digits and its half of the pairing exchange (kept here, as the door
/// keeps them in memory), so a test can announce it, type its code and open what the site sealed.
public struct PairingDoorUnderTest: Sendable {
    public let key: Curve25519.KeyAgreement.PrivateKey
    public let secret: String
    public let half: PairingExchange.DoorHalf
    public let resultKey = Curve25519.Signing.PrivateKey()

    public init(key: Curve25519.KeyAgreement.PrivateKey = .init(), secret: String = PairingCode.drawSecret()) throws {
        self.key = key
        self.secret = secret
        half = try PairingExchange.doorHalf(secret: secret, doorKey: key.publicKey.rawRepresentation)
    }

    public var doorKey: Data { key.publicKey.rawRepresentation }

    /// The announcement as the site keeps it; `tag` stands in for a rogue's ground nonce.
    public func waiting(
        id: String = UUID().uuidString, nonce: Data, tag: String? = nil, address: String = "192.0.2.10", hardware: String = "", announced: Date
    ) -> WaitingDoor {
        WaitingDoor(
            id: id, doorKey: doorKey, nonce: nonce, pakeMessage: half.message, pakeSID: half.sid,
            resultKey: resultKey.publicKey.rawRepresentation, tag: tag ?? PairingCode.tag(doorKey: doorKey, nonce: nonce),
            address: address, hardware: hardware, announced: announced, expires: announced.addingTimeInterval(DoorPairing.waitingSeconds))
    }

    /// The code its display shows for the announcement that got `nonce`.
    public func code(nonce: Data) -> PairingCode {
        PairingCode.make(doorKey: doorKey, nonce: nonce, secret: secret)
    }

    /// Opens a delivery as the door does.
    public func open(_ sealed: PairingSeal.Sealed, announcement: String, nonce: Data) throws -> Data {
        try PairingSeal.open(sealed, privateKey: key, half: half, announcement: announcement, nonce: nonce)
    }
}
