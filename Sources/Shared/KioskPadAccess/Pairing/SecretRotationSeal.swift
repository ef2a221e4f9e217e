import Crypto
import Foundation

/// A door's next signing secret as the site hands it over at a check-in (`POST
/// /v1/check-in`): sealed with ChaCha20-Poly1305 under a key only the door's current secret
/// gives (HKDF-SHA256 of that secret, salted with the protocol's label, the door's name as
/// `info`), the door's name as associated data. Only a holder of the current secret can read
/// it or make one the door accepts, so a network observer or another door cannot learn or
/// substitute the next secret; TLS protects it as well.
public enum SecretRotationSeal {
    /// Why a sealed secret was refused (a site that does not hold this door's secret, or a
    /// damaged answer); the text never holds a secret.
    public struct Refused: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    static let label = Array("kioskpad secret rotation v1".utf8)

    static func key(current: WebhookSecret, terminalID: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: current.key), salt: label, info: Array(terminalID.utf8), outputByteCount: 32)
    }

    /// `next` sealed for `terminalID` under `current`: base64 of nonce, ciphertext and tag.
    public static func seal(_ next: WebhookSecret, current: WebhookSecret, terminalID: String) throws -> String {
        let box = try ChaChaPoly.seal(
            Array(next.text.utf8), using: key(current: current, terminalID: terminalID), authenticating: Array(terminalID.utf8))
        return box.combined.base64EncodedString()
    }

    /// The next secret from `sealed`, when it was sealed for `terminalID` under `current`.
    public static func open(_ sealed: String, current: WebhookSecret, terminalID: String) throws -> WebhookSecret {
        guard let data = Data(base64Encoded: sealed) else { throw Refused(description: "the rotation's sealed secret is not base64") }
        let opened: Data
        do {
            opened = try ChaChaPoly.open(
                ChaChaPoly.SealedBox(combined: data), using: key(current: current, terminalID: terminalID), authenticating: Array(terminalID.utf8))
        } catch {
            throw Refused(description: "the rotation does not open with this door's secret (not sealed by its site, or damaged)")
        }
        guard let text = String(bytes: opened, encoding: .utf8), let next = try? WebhookSecret(parsing: text) else {
            throw Refused(description: "the rotation opened but holds no signing secret")
        }
        return next
    }
}
