import Foundation

/// A Standard Webhooks signing secret: `whsec_` followed by base64 of the HMAC key.
/// Never printed; its description shows only the key length.
public struct WebhookSecret: Sendable, CustomStringConvertible {
    public let key: [UInt8]

    /// Why a secret was refused.
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

    /// Reads the secret from `source` and parses it; errors start with the source.
    public init(reading source: SecretSource, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        do {
            try self.init(parsing: source.read(environment: environment))
        } catch {
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

/// Where a secret comes from: a file, an environment variable, or a systemd credential
/// (`$CREDENTIALS_DIRECTORY/NAME`, from `LoadCredential=`). Never the config file itself.
public enum SecretSource: Equatable, Sendable, CustomStringConvertible {
    case file(String)
    case environment(String)
    case credential(String)

    public var description: String {
        switch self {
        case .file(let path): return "file \(path)"
        case .environment(let name): return "environment variable \(name)"
        case .credential(let name): return "systemd credential \(name)"
        }
    }

    /// Reads the secret text; errors say which source and why.
    public func read(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        switch self {
        case .file(let path):
            do {
                return try String(contentsOfFile: path, encoding: .utf8)
            } catch {
                throw WebhookSecret.FormatError(description: "cannot read \(path): \(error.localizedDescription)")
            }
        case .environment(let name):
            guard let value = environment[name], !value.isEmpty else {
                throw WebhookSecret.FormatError(description: "environment variable \(name) is not set")
            }
            return value
        case .credential(let name):
            guard let directory = environment["CREDENTIALS_DIRECTORY"] else {
                throw WebhookSecret.FormatError(description: "CREDENTIALS_DIRECTORY is not set (is the service started by systemd with LoadCredential=\(name):...?)")
            }
            return try SecretSource.file(directory + "/" + name).read(environment: environment)
        }
    }
}
