import Foundation
import KioskPadCore
import KioskPadStorage
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The terminal's audit journal: one JSON object per line, fsynced after each record, each
/// with a sequence number and a unique id. Records never hold a PIN or code.
///
/// On disk it is segments in `state_dir`: the active one, `journal.jsonl`, and closed ones,
/// `journal-<first seq, 20 digits>.jsonl`. The active segment is closed (renamed) once it
/// holds `segmentBytes`; closed segments are deleted oldest first to keep all of them
/// within `maxBytes` (plus at most one record). Delivered records go first, as they are the
/// oldest; an undelivered one is dropped only when the records not yet delivered fill the
/// whole budget, and then counted through `dropped`. A torn last line (power cut mid-write)
/// is cut off at start and a `journal_repaired` record says how many bytes went.
///
/// It is also the forwarder's queue: ``read(after:from:limit:)`` continues from a
/// ``JournalPosition`` (segment and byte offset), so each record is read once, whatever the
/// journal's length.
public final class TerminalJournal: Sendable {
    public static let defaultMaxBytes = 4 << 20
    public static let activeName = "journal.jsonl"

    public let directory: String
    /// The active segment.
    public var path: String { directory + "/" + TerminalJournal.activeName }
    public let maxBytes: Int
    public let segmentBytes: Int

    struct Segment: Equatable {
        let first: Int
        var bytes: Int
    }

    struct State {
        var file: JSONLinesFile
        var nextSequence: Int
        /// First sequence number of the active segment (the next one while it is empty).
        var activeFirst: Int
        var activeBytes: Int
        var closed: [Segment]
        /// The last sequence number the forwarder confirmed (all, when nothing forwards).
        var deliveredThrough: Int
    }

    let state: Mutex<State>
    private let dropped: @Sendable (Int) -> Void

    /// Opens the journal in `directory` (created, mode 0700), repairing a torn last line.
    /// `forwarding`: records count as undelivered until ``markDelivered(through:)``.
    /// `dropped` is told how many undelivered records retention had to delete.
    public init(
        directory: String, maxBytes: Int = TerminalJournal.defaultMaxBytes, forwarding: Bool = false,
        dropped: @escaping @Sendable (Int) -> Void = { _ in }
    ) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        self.directory = directory
        self.maxBytes = maxBytes
        segmentBytes = max(maxBytes / 8, 4096)
        self.dropped = dropped
        let active = directory + "/" + TerminalJournal.activeName
        // The active segment is read once: its torn tail cut, its first and last records found.
        let (kept, repaired) = try TerminalJournal.cutTornLine(path: active)
        let activeLines = String(decoding: kept, as: UTF8.self).split(separator: "\n")
        let closed = TerminalJournal.closedSegments(in: directory)
        var last = activeLines.last.flatMap(TerminalJournal.sequence(of:))
        if last == nil, let newest = closed.last {
            last = TerminalJournal.lines(of: TerminalJournal.segmentPath(directory, newest.first)).last.flatMap(TerminalJournal.sequence(of:))
        }
        let next = (last ?? 0) + 1
        let activeBytes = kept.count
        state = Mutex(
            State(
                file: try JSONLinesFile(path: active), nextSequence: next,
                activeFirst: activeLines.first.flatMap(TerminalJournal.sequence(of:)) ?? next,
                activeBytes: activeBytes, closed: closed, deliveredThrough: forwarding ? 0 : Int.max))
        if repaired > 0 {
            try append(type: DoorRecordType.journalRepaired.rawValue, fields: [("dropped_bytes", .number(repaired))])
        }
    }

    /// Appends a record of `type` with `fields`; returns its sequence number.
    @discardableResult
    public func append(type: String, fields: [(String, JournalValue)], at time: Date = Date()) throws -> Int {
        let stamp = UTCTimestamp.rfc3339(time, milliseconds: true)
        let (sequence, lost): (Int, Int) = try state.withLock { state in
            var sequence = 0
            let file = state.file
            let bytes = try file.append(
                {
                    sequence = state.nextSequence
                    return [
                        ("seq", .number(sequence)), ("id", .text(UUID().uuidString.lowercased())),
                        ("time", .text(stamp)), ("type", .text(type)),
                    ] + fields
                },
                then: {
                    state.nextSequence = sequence + 1
                })
            if state.activeBytes == 0 { state.activeFirst = sequence }
            state.activeBytes += bytes
            guard state.activeBytes >= segmentBytes else { return (sequence, 0) }
            return (sequence, try rotate(&state))
        }
        if lost > 0 { dropped(lost) }
        return sequence
    }

    /// The forwarder confirmed every record up to `sequence`: retention may delete them.
    public func markDelivered(through sequence: Int) {
        state.withLock { $0.deliveredThrough = sequence }
    }

    /// Bytes on disk in all segments.
    public var totalBytes: Int {
        state.withLock { state in state.activeBytes + state.closed.reduce(0) { $0 + $1.bytes } }
    }

    /// Closes the active segment and applies retention; returns undelivered records deleted.
    private func rotate(_ state: inout State) throws -> Int {
        let closedPath = TerminalJournal.segmentPath(directory, state.activeFirst)
        guard rename(path, closedPath) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        state.closed.append(Segment(first: state.activeFirst, bytes: state.activeBytes))
        state.file = try JSONLinesFile(path: path)
        state.activeFirst = state.nextSequence
        state.activeBytes = 0
        TerminalJournal.syncDirectory(directory)
        var lost = 0
        // Closed segments get the budget less one active segment, so the whole stays within it.
        while state.closed.reduce(0, { $0 + $1.bytes }) > maxBytes - segmentBytes, let oldest = state.closed.first {
            let last = (state.closed.count > 1 ? state.closed[1].first : state.activeFirst) - 1
            if last > state.deliveredThrough {
                lost += last - max(state.deliveredThrough, oldest.first - 1)
            }
            unlink(TerminalJournal.segmentPath(directory, oldest.first))
            state.closed.removeFirst()
        }
        return lost
    }

    static func segmentPath(_ directory: String, _ first: Int) -> String {
        directory + "/journal-" + String(format: "%020d", first) + ".jsonl"
    }

    static func closedSegments(in directory: String) -> [Segment] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.compactMap { name -> Segment? in
            guard name.hasPrefix("journal-"), name.hasSuffix(".jsonl"),
                let first = Int(name.dropFirst(8).dropLast(6))
            else { return nil }
            let size = (try? FileManager.default.attributesOfItem(atPath: directory + "/" + name)[.size] as? Int) ?? 0
            return Segment(first: first, bytes: size)
        }.sorted { $0.first < $1.first }
    }

    /// Cuts a file back to its last complete line; returns what is left and the bytes cut.
    static func cutTornLine(path: String) throws -> (kept: Data, cut: Int) {
        let data = FileManager.default.contents(atPath: path) ?? Data()
        guard let lastByte = data.last, lastByte != UInt8(ascii: "\n") else { return (data, 0) }
        let keep = (data.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 }) ?? 0
        guard truncate(path, off_t(keep)) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return (data.prefix(keep), data.count - keep)
    }

    static func lines(of path: String) -> [Substring] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n")
    }

    /// The `seq` a journal line starts with (`{"seq":N,...`), else from its JSON.
    static func sequence<S: StringProtocol>(of line: S) -> Int? {
        let prefix = "{\"seq\":"
        if line.hasPrefix(prefix) {
            let digits = line.dropFirst(prefix.count).prefix { $0.isASCII && $0.isNumber }
            if let value = Int(digits) { return value }
        }
        return (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["seq"] as? Int
    }

    private static func syncDirectory(_ directory: String) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    /// Every complete record of one file (sequence number and raw JSON line), in order.
    public static func read(path: String) throws -> [(sequence: Int, line: String)] {
        lines(of: path).compactMap { line in sequence(of: line).map { ($0, String(line)) } }
    }
}

/// A journal field value (a string or a whole number).
public typealias JournalValue = JSONValue
