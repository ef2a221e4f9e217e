import DurableStorage
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Remembers every signed request's `webhook-id` for as long as its signature could still be
/// accepted, in memory and in an append-only file, so that a request captured and sent again
/// is refused (409) also after the verifier restarts. Bounded: ids older than `window` are
/// forgotten (the file is compacted once it holds twice as many lines as are live, and at
/// start), and at most `capacity` ids are kept in memory.
///
/// A signature's timestamp may be up to 5 minutes behind or ahead of the verifier's clock,
/// so an id must be kept for 10 minutes after it was first seen: `window` defaults to that.
public final class ReplayLog: Sendable {
    public static let defaultWindow: TimeInterval = 600
    public let path: String?
    public let window: TimeInterval
    public let capacity: Int
    private let state: Mutex<ReplayState>

    /// Ids in memory only, forgotten at exit (tests, and a verifier without a state file).
    public init(window: TimeInterval = ReplayLog.defaultWindow, capacity: Int = 100_000) {
        path = nil
        self.window = window
        self.capacity = max(capacity, 1)
        state = Mutex(ReplayState(path: nil, capacity: max(capacity, 1)))
    }

    /// Loads the live ids from `path` (nil: memory only, for tests) and compacts the file.
    public init(path: String?, window: TimeInterval = ReplayLog.defaultWindow, capacity: Int = 100_000, now: Date = Date()) throws {
        self.path = path
        self.window = window
        self.capacity = max(capacity, 1)
        var state = ReplayState(path: path, capacity: max(capacity, 1))
        if let path {
            let cutoff = Int(now.timeIntervalSince1970 - window)
            if let text = try? String(contentsOfFile: path, encoding: .utf8) {
                for line in text.split(separator: "\n") {
                    let fields = line.split(separator: " ", maxSplits: 1)
                    guard fields.count == 2, let at = Int(fields[0]), at > cutoff else { continue }
                    state.remember(String(fields[1]), at: at)
                }
            }
            try state.compact()
        }
        self.state = Mutex(state)
    }

    deinit {
        state.withLock { $0.close() }
    }

    /// Records `id` seen at `now`; false when it was seen within the window (a replay).
    /// The id is on disk (fsynced) before this returns true.
    public func insert(_ id: String, now: Date) throws -> Bool {
        let window = Int(self.window)
        return try state.withLock { try $0.insert(id, at: Int(now.timeIntervalSince1970), window: window) }
    }

    public var count: Int { state.withLock { $0.seen.count } }
}

/// The ids, their order and the open file, changed only under ``ReplayLog``'s lock.
struct ReplayState {
    let path: String?
    let capacity: Int
    var seen: [String: Int] = [:]
    private var order: [(id: String, at: Int)] = []
    private var head = 0
    private var fd: Int32 = -1
    private var linesInFile = 0

    init(path: String?, capacity: Int) {
        self.path = path
        self.capacity = capacity
    }

    mutating func insert(_ id: String, at: Int, window: Int) throws -> Bool {
        forget(olderThan: at - window)
        guard seen[id] == nil else { return false }
        remember(id, at: at)
        if path != nil {
            try append("\(at) \(id)\n")
            if linesInFile > max(1_000, 2 * seen.count) { try compact() }
        }
        return true
    }

    mutating func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    mutating func remember(_ id: String, at: Int) {
        guard seen[id] == nil else { return }
        if seen.count >= capacity, head < order.count {
            seen[order[head].id] = nil
            head += 1
        }
        seen[id] = at
        order.append((id, at))
    }

    private mutating func forget(olderThan cutoff: Int) {
        while head < order.count, order[head].at <= cutoff {
            if seen[order[head].id] == order[head].at { seen[order[head].id] = nil }
            head += 1
        }
        if head > 1_024 && head * 2 > order.count {
            order.removeFirst(head)
            head = 0
        }
    }

    /// Rewrites the file with the live ids only, then reopens it for appending.
    mutating func compact() throws {
        guard let path else { return }
        let live = order[head...].filter { seen[$0.id] == $0.at }
        try DurableFile.replace(path: path, contents: Array(live.map { "\($0.at) \($0.id)\n" }.joined().utf8))
        linesInFile = live.count
        if fd >= 0 { Glibc.close(fd) }
        fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard fd >= 0 else { throw StateFileError(path: path, doing: "open", errno: errno) }
    }

    private mutating func append(_ line: String) throws {
        guard let path else { return }
        let bytes = Array(line.utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count, fsync(fd) == 0 else { throw StateFileError(path: path, doing: "write", errno: errno) }
        linesInFile += 1
    }
}
