import Foundation
import KioskPadEndpoints

/// A Standard Webhooks signing secret: `whsec_` followed by base64 of the HMAC key.
/// Never printed; its description shows only the key length.
public struct WebhookSecret: Sendable, CustomStringConvertible {
    public let key: [UInt8]

    /// Why a secret's text was refused (not `whsec_` and base64 of at least 16 bytes).
    public struct FormatError: Error, Equatable, CustomStringConvertible {
        public let description: String

        public init(description: String) {
            self.description = description
        }
    }

    public init(key: [UInt8]) {
        self.key = key
    }

    /// Parses `whsec_<base64>` (surrounding whitespace and a trailing newline are ignored).
    public init(parsing text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix("whsec_") else {
            throw FormatError(description: "must start with whsec_ followed by base64 (Standard Webhooks secret)")
        }
        guard let key = Data(base64Encoded: String(trimmed.dropFirst(6))), key.count >= 16 else {
            throw FormatError(description: "the part after whsec_ must be base64 of at least 16 bytes")
        }
        self.init(key: Array(key))
    }

    /// Reads the secret from `source` and parses it; errors start with the source
    /// (``SecretSource/ReadError`` when it cannot be read, ``FormatError`` when it is not a secret).
    public init(reading source: SecretSource, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        let text = try source.read(environment: environment)
        do {
            try self.init(parsing: text)
        } catch let error as FormatError {
            throw FormatError(description: "\(source): \(error)")
        }
    }

    /// A fresh random secret (for set-up instructions and tests).
    public static func generate() -> WebhookSecret {
        var generator = SystemRandomNumberGenerator()
        return WebhookSecret(key: (0..<32).map { _ in generator.next() })
    }

    /// The `whsec_...` text, for writing a secret file.
    public var text: String { "whsec_" + Data(key).base64EncodedString() }

    public var description: String { "<webhook secret, \(key.count) bytes>" }
}
