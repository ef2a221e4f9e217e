import Foundation
import KeypadVerifier

/// An append-only JSON-lines audit log, fsynced after every record. Records carry who,
/// when and what was decided - never a PIN or code.
public final class AuditLog: @unchecked Sendable {
    // @unchecked: appends are serialised by the lock.
    private let lock = NSLock()
    private let fd: Int32
    public let path: String

    public init(path: String) throws {
        self.path = path
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }

    deinit {
        close(fd)
    }

    /// Appends one record (string values only) and fsyncs.
    public func append(_ fields: [(String, String)]) throws {
        let line = "{" + fields.map { "\(VerificationRequestBody.jsonString($0.0)):\(VerificationRequestBody.jsonString($0.1))" }.joined(separator: ",") + "}\n"
        let bytes = Array(line.utf8)
        try lock.withLock {
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard written == bytes.count, fsync(fd) == 0 else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
        }
    }
}
