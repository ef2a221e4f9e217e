import DurableStorage
import Foundation
import Synchronization

/// The terminal's append-only audit journal: one JSON object per line in
/// `state_dir/journal.jsonl`, fsynced after each record, each with a sequence number and a
/// unique id. It is also the queue for forwarding: the forwarder remembers the last
/// sequence number delivered. Records never hold a PIN or code.
public final class TerminalJournal: Sendable {
    public var path: String { file.path }
    private let file: JSONLinesFile
    /// Read and advanced only inside the file's append, so numbering and writing are one step.
    private let nextSequence: Mutex<Int>

    public init(directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = directory + "/journal.jsonl"
        file = try JSONLinesFile(path: path)
        let last = (try? TerminalJournal.read(path: path).last?.sequence) ?? 0
        nextSequence = Mutex(last + 1)
    }

    /// Appends a record of `type` with `fields` (strings or pre-encoded JSON numbers); returns its sequence number.
    @discardableResult
    public func append(type: String, fields: [(String, JournalValue)], at time: Date = Date()) throws -> Int {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var sequence = 0
        try file.append({
            sequence = nextSequence.withLock { $0 }
            return [
                ("seq", .number(sequence)), ("id", .text(UUID().uuidString.lowercased())),
                ("time", .text(formatter.string(from: time))), ("type", .text(type)),
            ] + fields
        }, then: {
            nextSequence.withLock { $0 = sequence + 1 }
        })
        return sequence
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

/// A journal field value (a string or a whole number).
public typealias JournalValue = JSONValue
