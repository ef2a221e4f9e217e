import Foundation
import KioskPadCore
import KioskPadEndpoints

extension ConfigValues {
    /// `<prefix>_file`, `<prefix>_env` or `<prefix>_credential`; at most one. A secret
    /// written into the config itself (`<prefix>:`) is refused.
    public static func secretSource(_ reader: MappingReader, prefix: String, baseDirectory: String) -> SecretSource? {
        if reader.has(prefix) {
            reader.log.report(
                reader.keyPath(prefix),
                "secrets are never read from the config file; use \(prefix)_file, \(prefix)_env or \(prefix)_credential (systemd LoadCredential=)",
                at: reader.value(prefix))
        }
        var sources: [SecretSource] = []
        if reader.has("\(prefix)_file") { sources.append(.file(resolve(reader.string("\(prefix)_file", default: ""), baseDirectory))) }
        if reader.has("\(prefix)_env") { sources.append(.environment(reader.string("\(prefix)_env", default: ""))) }
        if reader.has("\(prefix)_credential") { sources.append(.credential(reader.string("\(prefix)_credential", default: ""))) }
        if sources.count > 1 {
            reader.log.report(reader.keyPath("\(prefix)_file"), "give only one of \(prefix)_file, \(prefix)_env and \(prefix)_credential", at: reader.node)
        }
        return sources.first
    }

    /// `path`, resolved against the config file's directory when relative.
    public static func resolve(_ path: String, _ baseDirectory: String) -> String {
        path.hasPrefix("/") ? path : (baseDirectory as NSString).appendingPathComponent(path)
    }
}

/// The lockout section both programs read.
public enum LockoutSection {
    /// `lockout:`, in the door's config and the server's: failures within a window lock a
    /// door or a source out, doubling up to a cap.
    public static func read(_ reader: MappingReader) -> LockoutPolicy {
        var policy = LockoutPolicy()
        policy.maxFailures = reader.int("max_failures", default: 5, range: 1...100)
        policy.window = reader.seconds("window_s", default: 300, range: 1...86_400)
        policy.lockout = reader.seconds("lockout_s", default: 30, range: 1...86_400)
        policy.maxLockout = reader.seconds("max_lockout_s", default: 900, range: 1...604_800)
        if policy.maxLockout < policy.lockout {
            reader.log.report(
                reader.keyPath("max_lockout_s"), "is less than lockout_s; it caps the doubling, so it must be at least lockout_s",
                at: reader.value("max_lockout_s"))
        }
        reader.finish()
        return policy
    }
}
