import Foundation
import KioskPadCore
import Yams

/// Reads a YAML config strictly: unknown keys, wrong types and out-of-range values are
/// all reported at once, each naming its key path, what is valid, and where it is.
public enum ConfigLoader {
    /// The largest config file read (a KioskPad config is a few kilobytes). Checked before
    /// parsing, so a huge or runaway file is refused at once instead of being parsed.
    public static let maxFileBytes = 1 << 20

    /// The file's text and the directory relative paths in it are resolved against.
    public static func read(_ path: String) throws -> (text: String, directory: String) {
        if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size > maxFileBytes {
            throw ConfigError(problems: [
                ConfigProblem(
                    path: "",
                    message: "config file \(path) is \(size) bytes, more than the \(maxFileBytes) a config may have (a KioskPad config is a few kilobytes)",
                    location: nil)
            ])
        }
        do {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            let directory = (path as NSString).deletingLastPathComponent
            return (text, directory.isEmpty ? "." : directory)
        } catch {
            throw ConfigError(problems: [
                ConfigProblem(path: "", message: "cannot read config file \(path): \(error.localizedDescription)", location: nil)
            ])
        }
    }

    /// The YAML node tree, or a config error saying where the YAML is broken.
    public static func compose(_ yaml: String, source: String) throws -> Node? {
        do {
            return try Yams.compose(yaml: yaml, .basic)
        } catch {
            throw ConfigError(problems: [ConfigProblem(path: "", message: "not valid YAML: \(error)", location: source)])
        }
    }
}
