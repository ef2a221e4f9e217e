import Crypto
import CryptoExtras
import Foundation
import KioskPadCore

/// A salted slow hash of a PIN in PHC string format:
/// `$pbkdf2-sha256$i=<iterations>$<salt>$<hash>` (base64 without padding, 16-byte salt,
/// 32-byte hash). The iteration count lives in the string, so it can be raised later
/// without invalidating existing lines.
public struct PINHash: Equatable, Sendable, CustomStringConvertible {
    /// Default work factor: ~100 ms per check on a Raspberry Pi 4 (see docs/door-config.md, "PIN hashes and the users file").
    public static let defaultIterations = 75_000
    public static let iterationRange = 1_000...10_000_000
    static let prefix = "$pbkdf2-sha256$"

    public let iterations: Int
    public let salt: [UInt8]
    public let hash: [UInt8]

    /// Why a hash string could not be read.
    public struct FormatError: Error, Equatable, CustomStringConvertible {
        public let reason: String
        public var description: String {
            "\(reason); expected $pbkdf2-sha256$i=ITERATIONS$SALT$HASH (make one with `kioskpad pin hash`)"
        }
    }

    /// Hashes `pin` with a fresh random salt.
    public static func make(pin: SecretDigits, iterations: Int = defaultIterations) throws -> PINHash {
        var salt = [UInt8](repeating: 0, count: 16)
        var generator = SystemRandomNumberGenerator()
        for index in salt.indices { salt[index] = generator.next() }
        return PINHash(iterations: iterations, salt: salt, hash: try derive(pin, salt: salt, iterations: iterations))
    }

    /// Work factor of a site administrator's password (`verifier admin add`): a password is
    /// checked once per login, not once per door attempt, so it can cost far more than a PIN.
    public static let passwordIterations = 600_000

    /// Hashes an administrator's password (UTF-8 bytes) with a fresh random salt.
    public static func make(password: [UInt8], iterations: Int = passwordIterations) throws -> PINHash {
        var salt = [UInt8](repeating: 0, count: 16)
        var generator = SystemRandomNumberGenerator()
        for index in salt.indices { salt[index] = generator.next() }
        let hash = try password.withUnsafeBufferPointer { try derive(bytes: $0, salt: salt, iterations: iterations) }
        return PINHash(iterations: iterations, salt: salt, hash: hash)
    }

    /// True when `password` hashes to this value; compares in constant time.
    public func matches(password: [UInt8]) -> Bool {
        guard let candidate = try? password.withUnsafeBufferPointer({ try PINHash.derive(bytes: $0, salt: salt, iterations: iterations) }) else { return false }
        return ConstantTime.equal(candidate, hash)
    }

    public init(iterations: Int, salt: [UInt8], hash: [UInt8]) {
        self.iterations = iterations
        self.salt = salt
        self.hash = hash
    }

    public init(parsing text: some StringProtocol) throws {
        guard text.hasPrefix(PINHash.prefix) else {
            throw FormatError(reason: "unknown hash scheme")
        }
        let fields = text.dropFirst(PINHash.prefix.count).split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count == 3 else { throw FormatError(reason: "wrong number of $-separated fields") }
        guard fields[0].hasPrefix("i="), let iterations = Int(fields[0].dropFirst(2)),
            PINHash.iterationRange.contains(iterations)
        else {
            throw FormatError(reason: "iterations must be i=N with N in \(PINHash.iterationRange)")
        }
        guard let salt = Base64NoPad.decode(fields[1]), salt.count >= 8 else {
            throw FormatError(reason: "salt is not base64 of at least 8 bytes")
        }
        guard let hash = Base64NoPad.decode(fields[2]), hash.count == 32 else {
            throw FormatError(reason: "hash is not base64 of 32 bytes")
        }
        self.init(iterations: iterations, salt: salt, hash: hash)
    }

    public var description: String {
        "\(PINHash.prefix)i=\(iterations)$\(Base64NoPad.encode(salt))$\(Base64NoPad.encode(hash))"
    }

    /// True when `pin` hashes to this value; compares in constant time.
    public func matches(_ pin: SecretDigits) -> Bool {
        guard let candidate = try? PINHash.derive(pin, salt: salt, iterations: iterations) else { return false }
        return ConstantTime.equal(candidate, hash)
    }

    static func derive(_ pin: SecretDigits, salt: [UInt8], iterations: Int) throws -> [UInt8] {
        try pin.withASCIIBytes { try derive(bytes: $0, salt: salt, iterations: iterations) }
    }

    static func derive(bytes: UnsafeBufferPointer<UInt8>, salt: [UInt8], iterations: Int) throws -> [UInt8] {
        let key = try KDF.Insecure.PBKDF2.deriveKey(
            from: bytes, salt: salt, using: .sha256, outputByteCount: 32, unsafeUncheckedRounds: iterations)
        return key.withUnsafeBytes { Array($0) }
    }
}

/// Standard base64 without `=` padding, as PHC strings use.
enum Base64NoPad {
    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var padded = String(text)
        while padded.count % 4 != 0 { padded += "=" }
        return Data(base64Encoded: padded).map(Array.init)
    }
}
