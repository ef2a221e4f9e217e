import Foundation

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

    /// Why a secret could not be read: a file that cannot be read, a variable or a
    /// credential that is not set.
    public struct ReadError: Error, Equatable, CustomStringConvertible {
        public let source: SecretSource
        public let reason: String

        /// For example `file /etc/kioskpad/secret: cannot read /etc/kioskpad/secret: ...`.
        public var description: String { "\(source): \(reason)" }
    }

    /// Reads the secret text; errors say which source and why.
    public func read(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        switch self {
        case .file(let path):
            return try readFile(path)
        case .environment(let name):
            guard let value = environment[name], !value.isEmpty else {
                throw ReadError(source: self, reason: "not set")
            }
            return value
        case .credential(let name):
            guard let directory = environment["CREDENTIALS_DIRECTORY"] else {
                throw ReadError(source: self, reason: "CREDENTIALS_DIRECTORY is not set (is the service started by systemd with LoadCredential=\(name):...?)")
            }
            return try readFile(directory + "/" + name)
        }
    }

    /// The file's text; an error names this source (a credential's, not a plain file's).
    private func readFile(_ path: String) throws -> String {
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ReadError(source: self, reason: "cannot read \(path): \(error.localizedDescription)")
        }
    }
}

extension SecretSource {
    /// The config key this source was read from under `prefix`: `PREFIX_file`, `PREFIX_env`
    /// or `PREFIX_credential`.
    public func configKey(_ prefix: String) -> String {
        switch self {
        case .file: return prefix + "_file"
        case .environment: return prefix + "_env"
        case .credential: return prefix + "_credential"
        }
    }
}
