import KioskPadCore
import KioskPadEndpoints

extension SecretSource {
    /// The text this source holds, read now; an error names the config key it came from
    /// (`key` + `_file`, `_env` or `_credential`), never the text.
    public func text(key prefix: String, kind: KeyedError.Kind = .configuration) throws -> String {
        do {
            return try read()
        } catch {
            throw KeyedError(key: configKey(prefix), message: "\(error)", kind: kind)
        }
    }
}

extension WebhookSecret {
    /// The signing secret `source` holds, read now; an error names the config key it came
    /// from (`key` + `_file`, `_env` or `_credential`), never the secret.
    public init(configured source: SecretSource, key prefix: String) throws {
        do {
            try self.init(reading: source)
        } catch {
            throw KeyedError(key: source.configKey(prefix), message: "\(error)")
        }
    }
}
