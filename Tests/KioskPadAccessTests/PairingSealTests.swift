import Crypto
import Foundation
import KioskPadAccess
import Testing

/// The pairing code, the exchange on its digits and the sealed delivery: only the door whose
/// code was typed opens it, with its own key and its own half of the exchange; a wrong digit,
/// another door's key or half, another announcement or a changed byte opens nothing; the
/// code's secret digits never show in its description, nor in anything the door or site send.
@Suite("Pairing: the code, the exchange and the sealed delivery")
struct PairingSealTests {
    let door = Curve25519.KeyAgreement.PrivateKey()
    let nonce = Data((0..<16).map { UInt8($0) })
    let bundle = Data(#"{"terminal_id":"front-door","secret":"whsec_..."}"#.utf8)
    let digits = PairingCode.drawSecret()

    var doorKey: Data { door.publicKey.rawRepresentation }

    func half() throws -> PairingExchange.DoorHalf {
        try PairingExchange.doorHalf(secret: digits, doorKey: doorKey)
    }

    /// What the site seals for `half`'s announcement when `typed` digits were typed.
    func sealed(_ half: PairingExchange.DoorHalf, typed: String, to key: Data? = nil, announcement: String = "a1") throws -> PairingSeal.Sealed {
        try PairingSeal.seal(
            bundle, doorKey: key ?? doorKey, doorMessage: half.message, sid: half.sid, secret: typed, announcement: announcement, nonce: nonce)
    }

    @Test func theDoorOpensWhatWasSealedWithItsCode() throws {
        let half = try half()
        let opened = try PairingSeal.open(try sealed(half, typed: digits), privateKey: door, half: half, announcement: "a1", nonce: nonce)
        #expect(opened == bundle)
        // Neither message carries the digits (nor anything a guess could be checked against
        // without a scalar: the share is a random multiple of the digits' generator).
        let delivery = try sealed(half, typed: digits)
        #expect(!half.message.base64EncodedString().contains(digits) && !delivery.siteMessage.contains(digits))
        #expect(Data(base64Encoded: delivery.siteMessage) != nil && half.sid.count == 16)
    }

    @Test func aWrongDigitAnotherDoorOrAnotherAnnouncementOpensNothing() throws {
        let half = try half()
        var typo = Array(digits)
        typo[7] = typo[7] == "0" ? "1" : "0"
        #expect(throws: PairingSeal.OpenError.wrongCode) {
            try PairingSeal.open(try sealed(half, typed: String(typo)), privateKey: door, half: half, announcement: "a1", nonce: nonce)
        }
        // Sealed to a rogue door's key (an administrator who picked the wrong waiting door):
        // the real door cannot open it, and the rogue would need the code's secret digits.
        let rogue = Curve25519.KeyAgreement.PrivateKey()
        let toRogue = try sealed(half, typed: digits, to: rogue.publicKey.rawRepresentation)
        #expect(throws: PairingSeal.OpenError.wrongCode) { try PairingSeal.open(toRogue, privateKey: door, half: half, announcement: "a1", nonce: nonce) }
        // Another announcement: the site's message names it, so the door refuses it unopened.
        #expect(throws: PairingSeal.OpenError.malformed) {
            try PairingSeal.open(try sealed(half, typed: digits, announcement: "a2"), privateKey: door, half: half, announcement: "a1", nonce: nonce)
        }
        // The same digits, but another half of the exchange (a man in the middle who announced
        // its own share, or a door that started over): nothing opens.
        let other = try PairingExchange.doorHalf(secret: digits, doorKey: doorKey)
        #expect(throws: PairingSeal.OpenError.wrongCode) {
            try PairingSeal.open(try sealed(other, typed: digits), privateKey: door, half: half, announcement: "a1", nonce: nonce)
        }
    }

    @Test func aChangedByteOrGarbageOpensNothing() throws {
        let half = try half()
        let good = try sealed(half, typed: digits)
        var bytes = Data(base64Encoded: good.ciphertext)!
        bytes[bytes.startIndex + 3] ^= 0x01
        let changed = PairingSeal.Sealed(siteMessage: good.siteMessage, encapsulatedKey: good.encapsulatedKey, ciphertext: bytes.base64EncodedString())
        #expect(throws: PairingSeal.OpenError.wrongCode) { try PairingSeal.open(changed, privateKey: door, half: half, announcement: "a1", nonce: nonce) }
        var share = Data(base64Encoded: good.siteMessage)!
        share[share.startIndex + 5] ^= 0x01
        let otherShare = PairingSeal.Sealed(siteMessage: share.base64EncodedString(), encapsulatedKey: good.encapsulatedKey, ciphertext: good.ciphertext)
        #expect(throws: PairingSeal.OpenError.self) { try PairingSeal.open(otherShare, privateKey: door, half: half, announcement: "a1", nonce: nonce) }
        let garbage = PairingSeal.Sealed(siteMessage: good.siteMessage, encapsulatedKey: "not base64!", ciphertext: good.ciphertext)
        #expect(throws: PairingSeal.OpenError.malformed) { try PairingSeal.open(garbage, privateKey: door, half: half, announcement: "a1", nonce: nonce) }
        // A door's share that is no element: the site refuses to answer it.
        let invalid = CPace.message(share: Data(count: 32), associatedData: PairingExchange.doorAssociatedData)
        #expect(throws: CPace.Failure.invalidShare) {
            try PairingSeal.seal(bundle, doorKey: doorKey, doorMessage: invalid, sid: half.sid, secret: digits, announcement: "a1", nonce: nonce)
        }
    }

    @Test func theTagNamesTheKeyAndNonceAndTheCodeReadsAsTyped() throws {
        let key = door.publicKey.rawRepresentation
        let code = PairingCode.make(doorKey: key, nonce: nonce)
        #expect(code.tag == PairingCode.tag(doorKey: key, nonce: nonce))
        #expect(code.tag.count == 4 && code.secret.count == 8 && (code.tag + code.secret).allSatisfy(\.isNumber))
        #expect(PairingCode(typed: code.shown) == code)
        #expect(PairingCode(typed: " \(code.tag) \(code.secret.prefix(4)) \(code.secret.dropFirst(4)) ") == code)
        #expect(PairingCode(typed: "1234-5678-901") == nil && PairingCode(typed: "1234-5678-901x") == nil)
        #expect(!"\(code)".contains(code.secret) && "\(code)".contains(code.tag))
        // The same key with another announcement's nonce has its own tag (almost always; a
        // tag is 4 digits): over 200 nonces, the tags spread.
        let tags = Set((0..<200).map { PairingCode.tag(doorKey: key, nonce: Data([UInt8($0)])) })
        #expect(tags.count > 150)
    }
}
