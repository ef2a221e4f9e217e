import Crypto
import Foundation
import KioskPadCore

/// Standard Webhooks signatures: HMAC-SHA256 over `"<id>.<timestamp>.<body>"`, sent as
/// `webhook-signature: v1,<base64>` with `webhook-id` and `webhook-timestamp` headers.
public enum WebhookSignature {
    /// How far a timestamp may be from the verifier's clock.
    public static let tolerance: TimeInterval = 300

    public static func sign(id: String, timestamp: Int, body: [UInt8], secret: WebhookSecret) -> String {
        var message = Array("\(id).\(timestamp).".utf8)
        message += body
        defer { message.withUnsafeMutableBufferPointer { $0.update(repeating: 0) } }
        let mac = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: secret.key))
        return "v1," + Data(mac).base64EncodedString()
    }

    /// The three headers that sign `body` as message `id`, timestamped `now`.
    public static func headers(id: String, body: [UInt8], secret: WebhookSecret, now: Date = Date()) -> [(name: String, value: String)] {
        let timestamp = Int(now.timeIntervalSince1970)
        return [
            ("webhook-id", id), ("webhook-timestamp", String(timestamp)),
            ("webhook-signature", sign(id: id, timestamp: timestamp, body: body, secret: secret)),
        ]
    }

    /// Why a signed request was refused.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case missingHeaders
        case badTimestamp
        case stale
        case badSignature

        public var description: String {
            switch self {
            case .missingHeaders: return "missing webhook-id, webhook-timestamp or webhook-signature"
            case .badTimestamp: return "webhook-timestamp is not unix seconds"
            case .stale: return "webhook-timestamp is more than 5 minutes from now"
            case .badSignature: return "no webhook-signature matches"
            }
        }
    }

    /// Checks the headers against `body`. The signature header may hold several
    /// space-separated `v1,...` entries (key rotation); any match is enough. Constant-time.
    public static func verify(
        id: String?, timestamp: String?, signature: String?, body: [UInt8], secret: WebhookSecret,
        now: Date = Date()
    ) -> Failure? {
        guard let id, let timestamp, let signature, !id.isEmpty else { return .missingHeaders }
        guard let seconds = Int(timestamp) else { return .badTimestamp }
        guard abs(now.timeIntervalSince1970 - Double(seconds)) <= tolerance else { return .stale }
        let expected = Array(sign(id: id, timestamp: seconds, body: body, secret: secret).utf8)
        var matched = false
        for candidate in signature.split(separator: " ") where ConstantTime.equal(Array(candidate.utf8), expected) {
            matched = true
        }
        return matched ? nil : .badSignature
    }
}
