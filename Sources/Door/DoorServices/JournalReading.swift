import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where a reader of the journal is: a segment (named by its first sequence number) and a
/// byte offset in it, just after the last complete line read. Survives the active segment
/// being closed (renamed), as the segment keeps its first sequence number.
public struct JournalPosition: Sendable, Equatable {
    public var segment: Int
    public var offset: Int

    public init(segment: Int, offset: Int) {
        self.segment = segment
        self.offset = offset
    }
}

extension TerminalJournal {
    /// Up to `limit` records after `sequence`, read from `position` (nil, or a segment that
    /// retention deleted: found again from `sequence`, reading that one segment from its
    /// start); and the position after them. Reads only the bytes of the records returned
    /// (plus the lines skipped to find a lost position), never the whole journal.
    public func read(after sequence: Int, from position: JournalPosition?, limit: Int) throws
        -> (records: [(sequence: Int, line: String)], next: JournalPosition)
    {
        var records: [(sequence: Int, line: String)] = []
        var position = position
        var last = sequence
        while records.count < limit {
            let (segment, path, following) = locate(position, after: last)
            var at = segment.offset
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            if fd < 0 {
                // Deleted by retention between two reads: find the records again.
                guard errno == ENOENT, position != nil else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                position = nil
                continue
            }
            defer { close(fd) }
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            var carry: [UInt8] = []
            var ended = false
            reading: while records.count < limit {
                let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(at + carry.count)) }
                if count < 0 { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                if count == 0 {
                    ended = true
                    break
                }
                carry += buffer[0..<count]
                var start = 0
                while let newline = carry[start...].firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: carry[start..<newline], as: UTF8.self)
                    at += newline + 1 - start
                    start = newline + 1
                    if let number = TerminalJournal.sequence(of: line), number > last {
                        records.append((number, line))
                        last = number
                        if records.count == limit { break reading }
                    }
                }
                carry.removeFirst(start)
            }
            position = JournalPosition(segment: segment.segment, offset: at)
            guard ended, let following else { break }
            position = JournalPosition(segment: following, offset: 0)
        }
        let end = position ?? JournalPosition(segment: state.withLock { $0.activeFirst }, offset: 0)
        return (records, end)
    }

    /// Every record after `sequence`, in order (tests and tools; the forwarder reads in batches).
    public func records(after sequence: Int) throws -> [(sequence: Int, line: String)] {
        try read(after: sequence, from: nil, limit: Int.max).records
    }

    /// The segment and file to read for `position` (or, without one, the segment holding
    /// `sequence + 1`), and the first sequence number of the segment after it, if closed.
    private func locate(_ position: JournalPosition?, after sequence: Int) -> (JournalPosition, String, Int?) {
        state.withLock { state in
            let firsts = state.closed.map(\.first) + [state.activeFirst]
            let chosen: JournalPosition
            if let position, firsts.contains(position.segment) {
                chosen = position
            } else {
                let first = firsts.last { $0 <= sequence + 1 } ?? firsts[0]
                chosen = JournalPosition(segment: first, offset: 0)
            }
            let isActive = chosen.segment == state.activeFirst
            let path = isActive ? self.path : TerminalJournal.segmentPath(directory, chosen.segment)
            let following = firsts.first { $0 > chosen.segment }
            return (chosen, path, isActive ? nil : following)
        }
    }
}
