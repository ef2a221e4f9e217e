import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An append-only file of one JSON object per line: opened with `O_APPEND`, each line
/// written whole and fsynced before ``append(_:)`` returns, appends serialised by one lock.
/// The terminal's journal and the reference verifier's audit log are both this file.
public final class JSONLinesFile: Sendable {
    public let path: String
    private let descriptor: Mutex<Int32>

    /// Opens (creating, mode 0600) the file at `path` for appending.
    public init(path: String) throws {
        self.path = path
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        descriptor = Mutex(fd)
    }

    deinit {
        descriptor.withLock { _ = close($0) }
    }

    /// Appends one object with `fields` in order and fsyncs it; returns the bytes written.
    @discardableResult
    public func append(_ fields: [(String, JSONValue)]) throws -> Int {
        try descriptor.withLock { try Self.write(fields, to: $0) }
    }

    /// Appends one object whose fields `make` builds while the lock is held, then runs
    /// `written` (still under the lock) once the line is on disk: a caller numbers its
    /// lines this way, with no gap or repeat, and no number used by a failed write.
    /// Returns the bytes written.
    @discardableResult
    public func append(_ make: () -> [(String, JSONValue)], then written: () -> Void) throws -> Int {
        try descriptor.withLock { fd in
            let count = try Self.write(make(), to: fd)
            written()
            return count
        }
    }

    private static func write(_ fields: [(String, JSONValue)], to fd: Int32) throws -> Int {
        let line = "{" + fields.map { "\(JSONValue.quoted($0.0)):\($0.1.json)" }.joined(separator: ",") + "}\n"
        let bytes = Array(line.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count, fsync(fd) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return bytes.count
    }
}

/// A field value in a ``JSONLinesFile`` line: a string (escaped), a whole number, or JSON
/// that is already encoded (a journal line kept whole in the dead-letter file).
public enum JSONValue: Sendable, Equatable {
    case text(String)
    case number(Int)
    case json(String)

    /// The value as JSON.
    public var json: String {
        switch self {
        case .text(let text): return JSONValue.quoted(text)
        case .number(let number): return String(number)
        case .json(let json): return json
        }
    }

    /// `text` as a JSON string literal: quotes, backslashes and control characters escaped.
    public static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
