import Crypto
import Foundation
import KioskPadAccess
import Testing

/// The pairing code and the sealed delivery: only the door whose code was typed opens it,
/// with its own key; a wrong digit, another door's key, another announcement or a
/// changed byte opens nothing; the code's secret digits never show in its description.
@Suite("Pairing: the code and the sealed delivery")
struct PairingSealTests {
    let door = Curve25519.KeyAgreement.PrivateKey()
    let nonce = Data((0..<16).map { UInt8($0) })
    let bundle = Data(#"{"terminal_id":"front-door","secret":"whsec_..."}"#.utf8)

    func sealed(_ code: PairingCode, to key: Data? = nil, announcement: String = "a1") throws -> PairingSeal.Sealed {
        try PairingSeal.seal(
            bundle, doorKey: key ?? door.publicKey.rawRepresentation, secret: code.secret, announcement: announcement, nonce: nonce)
    }

    @Test func theDoorOpensWhatWasSealedWithItsCode() throws {
        let code = PairingCode.make(doorKey: door.publicKey.rawRepresentation, nonce: nonce)
        let opened = try PairingSeal.open(try sealed(code), privateKey: door, code: code, announcement: "a1", nonce: nonce)
        #expect(opened == bundle)
    }

    @Test func aWrongDigitAnotherDoorOrAnotherAnnouncementOpensNothing() throws {
        let code = PairingCode.make(doorKey: door.publicKey.rawRepresentation, nonce: nonce)
        var digits = Array(code.secret)
        digits[7] = digits[7] == "0" ? "1" : "0"
        let typo = PairingCode(tag: code.tag, secret: String(digits))
        #expect(throws: PairingSeal.OpenError.wrongCode) {
            try PairingSeal.open(try sealed(typo), privateKey: door, code: code, announcement: "a1", nonce: nonce)
        }
        // Sealed to a rogue door's key (an administrator who picked the wrong waiting door):
        // the real door cannot open it, and the rogue would need the code's secret digits.
        let rogue = Curve25519.KeyAgreement.PrivateKey()
        let toRogue = try sealed(code, to: rogue.publicKey.rawRepresentation)
        #expect(throws: PairingSeal.OpenError.wrongCode) { try PairingSeal.open(toRogue, privateKey: door, code: code, announcement: "a1", nonce: nonce) }
        #expect(throws: PairingSeal.OpenError.wrongCode) {
            try PairingSeal.open(try sealed(code, announcement: "a2"), privateKey: door, code: code, announcement: "a1", nonce: nonce)
        }
    }

    @Test func aChangedByteOrGarbageOpensNothing() throws {
        let code = PairingCode.make(doorKey: door.publicKey.rawRepresentation, nonce: nonce)
        let good = try sealed(code)
        var bytes = Data(base64Encoded: good.ciphertext)!
        bytes[bytes.startIndex + 3] ^= 0x01
        let changed = PairingSeal.Sealed(encapsulatedKey: good.encapsulatedKey, ciphertext: bytes.base64EncodedString())
        #expect(throws: PairingSeal.OpenError.wrongCode) { try PairingSeal.open(changed, privateKey: door, code: code, announcement: "a1", nonce: nonce) }
        let garbage = PairingSeal.Sealed(encapsulatedKey: "not base64!", ciphertext: good.ciphertext)
        #expect(throws: PairingSeal.OpenError.malformed) { try PairingSeal.open(garbage, privateKey: door, code: code, announcement: "a1", nonce: nonce) }
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
