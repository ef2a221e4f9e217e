import Crypto
import Foundation
import KioskPadCore

/// The reference verifier's key for lookup tags (`server.lookup_key_file`): a line of the
/// users file may carry `tag=ID.HEX`, a keyed HMAC of its PIN (or card number), so an
/// attempt costs one HMAC plus the PBKDF2 checks of the lines with its tag, instead of one
/// PBKDF2 per user. ID names the key that made the tag (a line tagged under another key is
/// checked like an untagged one, so a new key costs speed, never a user). Anyone holding
/// both the users file and this key can test every PIN with HMACs instead of PBKDF2s: keep
/// the key out of the file's backups (a systemd credential).
public struct LookupKey: Sendable {
    /// The shortest key accepted, in characters of the key file's first line.
    public static let minimumLength = 32
    /// 8 hex digits of SHA-256 of the key: which key made a tag.
    public let id: String
    private let key: SymmetricKey

    /// A problem with the key text (the caller names the config key).
    public struct KeyError: Error, CustomStringConvertible {
        public let description: String
    }

    /// The key from its file's text (trimmed; at least 32 characters, e.g. `head -c 32 /dev/urandom | base64`).
    public init(text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.count >= LookupKey.minimumLength, !trimmed.contains(where: \.isNewline) else {
            throw KeyError(
                description: "a lookup key is one line of at least \(LookupKey.minimumLength) characters (make one with: head -c 32 /dev/urandom | base64)")
        }
        let bytes = Array(trimmed.utf8)
        key = SymmetricKey(data: bytes)
        id = LowercaseHex.string(SHA256.hash(data: bytes).prefix(4))
    }

    /// The tag of `value` for attempts of `kind` (`ID.` and 32 hex digits): a card number
    /// and a PIN with the same digits have different tags.
    public func tag(_ value: SecretDigits, kind: AttemptKind) -> String {
        id + "." + LookupKey.keyedTag(value, kind: kind, key: key, domain: "kioskpad-lookup-v1")
    }

    /// The tag of an issued code's digits (a one-time, enrolment or visitor pass code): the
    /// site finds the one row a typed code can match by it, not by hashing every live code.
    /// Its own label, so a code's tag never equals a PIN's or a card's with the same digits.
    public func codeTag(_ value: SecretDigits) -> String {
        id + "." + LookupKey.keyedTag(value, label: "code", key: key, domain: "kioskpad-lookup-v1")
    }

    /// 32 hex digits: the first 16 bytes of HMAC-SHA256 under `key` of `domain`, NUL, `pin`
    /// or `card`, NUL, then the digits. Lookup tags and replica tags differ only in key and
    /// domain, so a PIN's tag under one says nothing of its tag under the other.
    static func keyedTag(_ value: SecretDigits, kind: AttemptKind, key: SymmetricKey, domain: String) -> String {
        keyedTag(value, label: kind == .card ? "card" : "pin", key: key, domain: domain)
    }

    private static func keyedTag(_ value: SecretDigits, label: String, key: SymmetricKey, domain: String) -> String {
        var mac = HMAC<SHA256>(key: key)
        mac.update(data: Array("\(domain)\0\(label)\0".utf8))
        value.withASCIIBytes { mac.update(data: UnsafeRawBufferPointer($0)) }
        return LowercaseHex.string(Array(mac.finalize()).prefix(16))
    }

    /// The id of the key that made `tag` (its first 8 hex digits).
    public static func keyID(ofTag tag: String) -> String {
        String(tag.prefix(8))
    }

    /// True for text shaped like a tag (`tag=` on a users-file line).
    public static func isTag(_ text: Substring) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 2 && parts[0].count == 8 && parts[1].count == 32
            && parts.allSatisfy { $0.allSatisfy { $0.isHexDigit && !$0.isUppercase } }
    }
}
