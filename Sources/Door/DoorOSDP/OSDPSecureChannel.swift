import Crypto
import CryptoExtras
import Foundation

/// A reader's Secure Channel base key (SCBK): 16 bytes, never logged or printed.
public struct OSDPKey: Sendable, CustomStringConvertible {
    let bytes: [UInt8]

    /// SCBK-D, the default key of the specification, which a reader in install mode accepts
    /// so that it can be given its own key.
    public static let installDefault = OSDPKey(unchecked: Array(0x30...0x3F))

    /// 32 hex digits (upper or lower case; surrounding white space ignored), or nil.
    public init?(hex text: some StringProtocol) {
        let digits = Array(text.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        guard digits.count == 32 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: 32, by: 2) {
            guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        self.bytes = bytes
    }

    init(unchecked bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Random, for `kioskpad osdp keyset --generate`.
    public static func random() -> OSDPKey {
        var generator = SystemRandomNumberGenerator()
        return OSDPKey(unchecked: (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// The 32 hex digits, for writing a key file only.
    public var hex: String { bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined() }

    public var description: String { "<OSDP key>" }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte - 0x30
        case 0x41...0x46: return byte - 0x41 + 10
        case 0x61...0x66: return byte - 0x61 + 10
        default: return nil
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

/// The Secure Channel of one session with a reader (SIA OSDP v2.2, annex D): session keys
/// derived from the SCBK and the CP's random number, the two cryptograms of the handshake,
/// the MAC chain (each command's MAC starts from the last reply's, and the other way round),
/// and data encryption. AES comes from swift-crypto; nothing here is hand-written cipher code.
public struct OSDPSecureChannel: Sendable {
    private let encryption: SymmetricKey
    private let mac1: SymmetricKey
    private let mac2: SymmetricKey
    let serverRandom: [UInt8]
    let clientRandom: [UInt8]
    /// The MAC of the last command sent, and of the last reply accepted (16 bytes each).
    private(set) var commandMAC = [UInt8](repeating: 0, count: 16)
    private(set) var replyMAC = [UInt8](repeating: 0, count: 16)

    /// The session keys for `key`, this side's `serverRandom` (RND.A) and the reader's
    /// `clientRandom` (RND.B), both 8 bytes.
    public init(key: OSDPKey, serverRandom: [UInt8], clientRandom: [UInt8]) throws {
        let base = SymmetricKey(data: key.bytes)
        func derive(_ first: UInt8, _ second: UInt8) throws -> SymmetricKey {
            SymmetricKey(data: try Self.block([first, second] + Array(serverRandom.prefix(6)) + [UInt8](repeating: 0, count: 8), key: base))
        }
        encryption = try derive(0x01, 0x82)
        mac1 = try derive(0x01, 0x01)
        mac2 = try derive(0x01, 0x02)
        self.serverRandom = serverRandom
        self.clientRandom = clientRandom
    }

    /// The reader's cryptogram it must have sent: AES(S-ENC, RND.A || RND.B).
    public func expectedClientCryptogram() throws -> [UInt8] {
        try Self.block(serverRandom + clientRandom, key: encryption)
    }

    /// This side's cryptogram: AES(S-ENC, RND.B || RND.A).
    public func serverCryptogram() throws -> [UInt8] {
        try Self.block(clientRandom + serverRandom, key: encryption)
    }

    /// The initial R-MAC a reader with this session sends: AES(S-MAC2, AES(S-MAC1, this
    /// side's cryptogram)) (for tests that play a reader).
    public func initialMAC() throws -> [UInt8] {
        try Self.block(try Self.block(try serverCryptogram(), key: mac1), key: mac2)
    }

    /// Checks the reader's initial R-MAC (its answer to this side's cryptogram) in constant
    /// time, and starts the MAC chain from it.
    public mutating func acceptInitialMAC(_ mac: [UInt8]) throws -> Bool {
        let expected = try initialMAC()
        guard Self.constantTimeEqual(expected, mac) else { return false }
        replyMAC = expected
        return true
    }

    /// The 4 MAC bytes of a command whose bytes up to the MAC are `bytes`; the whole MAC
    /// becomes the chain's command MAC.
    public mutating func signCommand(_ bytes: [UInt8]) throws -> [UInt8] {
        commandMAC = try mac(bytes, chainedFrom: replyMAC)
        return Array(commandMAC.prefix(4))
    }

    /// Checks a reply's 4 MAC bytes in constant time; when they match, the reply MAC moves on.
    public mutating func verifyReply(_ bytes: [UInt8], mac sent: [UInt8]) throws -> Bool {
        let computed = try mac(bytes, chainedFrom: commandMAC)
        guard Self.constantTimeEqual(Array(computed.prefix(4)), sent) else { return false }
        replyMAC = computed
        return true
    }

    /// A command's data, padded (0x80 then zeros to 16 bytes) and encrypted with S-ENC,
    /// chained from the inverted last reply MAC.
    public func encryptCommandData(_ data: [UInt8]) throws -> [UInt8] {
        var padded = data + [0x80]
        while padded.count % 16 != 0 { padded.append(0) }
        let iv = try AES._CBC.IV(ivBytes: replyMAC.map { ~$0 })
        return Array(try AES._CBC.encrypt(padded, using: encryption, iv: iv, noPadding: true))
    }

    /// A reply's data decrypted (chained from the inverted last command MAC) and its padding
    /// removed; nil when it is not whole blocks or the padding is wrong.
    public func decryptReplyData(_ data: [UInt8]) throws -> [UInt8]? {
        guard !data.isEmpty, data.count % 16 == 0 else { return nil }
        let iv = try AES._CBC.IV(ivBytes: commandMAC.map { ~$0 })
        var plain = Array(try AES._CBC.decrypt(data, using: encryption, iv: iv, noPadding: true))
        while let last = plain.last, last == 0 { plain.removeLast() }
        guard plain.last == 0x80 else { return nil }
        plain.removeLast()
        return plain
    }

    /// The OSDP MAC: AES-CBC over the message padded (0x80 then zeros, only when not whole
    /// blocks), every block but the last with S-MAC1, the last with S-MAC2.
    private func mac(_ bytes: [UInt8], chainedFrom iv: [UInt8]) throws -> [UInt8] {
        var padded = bytes
        if padded.count % 16 != 0 {
            padded.append(0x80)
            while padded.count % 16 != 0 { padded.append(0) }
        }
        var chain = iv
        if padded.count > 16 {
            let leading = try AES._CBC.encrypt(
                padded[0..<(padded.count - 16)], using: mac1, iv: try AES._CBC.IV(ivBytes: chain), noPadding: true)
            chain = Array(leading.suffix(16))
        }
        let last = zip(padded.suffix(16), chain).map { $0 ^ $1 }
        return try Self.block(last, key: mac2)
    }

    /// One AES block encrypted with `key` (ECB of a single block).
    static func block(_ input: [UInt8], key: SymmetricKey) throws -> [UInt8] {
        var block = input
        try AES.permute(&block, key: key)
        return block
    }

    static func constantTimeEqual(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }

    /// Eight random bytes for a challenge.
    static func randomChallenge() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<8).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }
}
