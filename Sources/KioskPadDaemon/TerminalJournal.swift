import Foundation
import KeypadVerifier
import Synchronization

/// The terminal's append-only audit journal: one JSON object per line in
/// `state_dir/journal.jsonl`, fsynced after each record, each with a sequence number and a
/// unique id. It is also the queue for forwarding: the forwarder remembers the last
/// sequence number delivered. Records never hold a PIN or code.
public final class TerminalJournal: Sendable {
    public let path: String
    private let fd: Int32
    private let nextSequence: Mutex<Int>

    public init(directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        path = directory + "/journal.jsonl"
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let last = (try? TerminalJournal.read(path: path).last?.sequence) ?? 0
        nextSequence = Mutex(last + 1)
    }

    deinit {
        close(fd)
    }

    /// Appends a record of `type` with `fields` (strings or pre-encoded JSON numbers); returns its sequence number.
    @discardableResult
    public func append(type: String, fields: [(String, JournalValue)], at time: Date = Date()) throws -> Int {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return try nextSequence.withLock { sequence in
            let all: [(String, JournalValue)] = [
                ("seq", .number(sequence)), ("id", .text(UUID().uuidString.lowercased())),
                ("time", .text(formatter.string(from: time))), ("type", .text(type)),
            ] + fields
            let line = "{" + all.map { "\(VerificationRequestBody.jsonString($0.0)):\($0.1.json)" }.joined(separator: ",") + "}\n"
            let bytes = Array(line.utf8)
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard written == bytes.count, fsync(fd) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            defer { sequence += 1 }
            return sequence
        }
    }

    /// Every record (sequence number and raw JSON line), in order.
    public static func read(path: String) throws -> [(sequence: Int, line: String)] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        return try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let sequence = object["seq"] as? Int
            else { return nil } // a torn last line after a crash is skipped
            return (sequence, String(line))
        }
    }

    public func records(after sequence: Int) throws -> [(sequence: Int, line: String)] {
        try TerminalJournal.read(path: path).filter { $0.sequence > sequence }
    }
}

/// A journal field value.
public enum JournalValue: Sendable {
    case text(String)
    case number(Int)

    var json: String {
        switch self {
        case .text(let text): return VerificationRequestBody.jsonString(text)
        case .number(let number): return String(number)
        }
    }
}
