import Crypto
import Foundation
import KioskPadCore

/// The key of replica lookup tags: the verifier makes it once (beside its signing key) and
/// sends it in every door's replica; a PIN or card set with `kioskpad verifier user` or the
/// console gets a tag, an HMAC of the digits under this key (never under the server's own
/// lookup key). A replica carries each tag cut to ``bits(forEntries:)`` bits, so a door's
/// offline attempt costs one HMAC and, in 15 attempts of 16 or more, one PBKDF2 check at any
/// number of users, while a thief holding the door's files tests about `PIN space / 2^bits`
/// PINs per user at the full PBKDF2 cost (docs/site-server.md states the estimate).
public struct ReplicaTagKey: Sendable {
    /// Stands where a lookup tag's key id does (``LookupKey/keyID(ofTag:)``), so a replica's
    /// cut tags are matched like lookup tags of one key.
    public static let keyID = "replica0"
    public let raw: [UInt8]
    private let key: SymmetricKey

    public init(raw: [UInt8]) {
        self.raw = raw
        key = SymmetricKey(data: raw)
    }

    /// The full tag of `value` typed as `kind` (32 hex digits): what the verifier stores.
    public func tag(_ value: SecretDigits, kind: AttemptKind) -> String {
        LookupKey.keyedTag(value, kind: kind, key: key, domain: "kioskpad-replica-tag-v1")
    }

    /// The first `bits` bits of a full tag, as hex (bits past `bits` in the last digit are 0).
    public static func cut(_ tag: String, bits: Int) -> String {
        let digits = Array(tag.prefix((bits + 3) / 4))
        guard let last = digits.last, let value = Int(String(last), radix: 16) else { return String(digits) }
        let spare = digits.count * 4 - bits
        return String(digits.dropLast()) + String((value >> spare) << spare, radix: 16)
    }

    /// Bits a replica keeps of each tag for `count` tagged entries: log2 of the count,
    /// rounded up, plus 4, so an attempt's bucket holds another entry at most once in 16
    /// attempts on average (1 to 32 bits).
    public static func bits(forEntries count: Int) -> Int {
        var bits = 0
        while bits < 28, (1 << bits) < count { bits += 1 }
        return bits + 4
    }

    /// The tag a door looks up for `value`: its cut tag under ``keyID``.
    public func lookup(_ value: SecretDigits, kind: AttemptKind, bits: Int) -> (tag: String, keyID: String) {
        (Self.keyID + "." + Self.cut(tag(value, kind: kind), bits: bits), Self.keyID)
    }
}
