import Crypto
import Foundation

/// What a door says of a delivery (`POST /v1/pair/{id}/result`), signed with the Ed25519 key
/// it announced for that announcement (`result_key`): only the door that announced can end a
/// delivery, whether it opened (`opened`, which is signed with the new secret too) or not
/// (`not_opened`, which takes the sealed secret back and counts a failure).
public enum PairingResultSignature {
    /// The results a door reports.
    public enum Result: String, Sendable {
        case opened
        case notOpened = "not_opened"
    }

    /// The signed text: a label, the announcement's id and the result, one per line.
    static func statement(announcement: String, result: Result) -> Data {
        Data("kioskpad pairing result v1\n\(announcement)\n\(result.rawValue)".utf8)
    }

    /// The door's signature of `result` for `announcement`, base64.
    public static func sign(_ result: Result, announcement: String, key: Curve25519.Signing.PrivateKey) throws -> String {
        try key.signature(for: statement(announcement: announcement, result: result)).base64EncodedString()
    }

    /// Whether `signature` (base64) is the holder of `resultKey`'s (raw, 32 bytes) for `result`.
    public static func isValid(_ signature: String?, result: Result, announcement: String, resultKey: Data) -> Bool {
        guard let signature, let bytes = Data(base64Encoded: signature), let key = try? Curve25519.Signing.PublicKey(rawRepresentation: resultKey)
        else { return false }
        return key.isValidSignature(bytes, for: statement(announcement: announcement, result: result))
    }
}
