import Foundation
import KioskPadCore

extension OSDPKey {
    /// The key in the file at `path`: 32 hex digits, readable by its owner only (like an SSH
    /// key). Errors name `key` and never show the file's contents.
    public init(file path: String, key: String) throws {
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            throw KeyedError(key: key, message: "cannot read \(path): no such file", kind: .unavailable(retryable: false))
        }
        if let mode = attributes[.posixPermissions] as? Int, mode & 0o077 != 0 {
            throw KeyedError(
                key: key, message: "\(path) can be read by others (mode \(String(mode, radix: 8)))",
                fix: "chmod 600 \(path), owned by the service user")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw KeyedError(key: key, message: "cannot read \(path): permission denied", kind: .unavailable(retryable: false))
        }
        guard let text = String(data: data, encoding: .utf8), let parsed = OSDPKey(hex: text) else {
            throw KeyedError(key: key, message: "\(path) must hold the reader's Secure Channel key as 32 hex digits")
        }
        self = parsed
    }
}
