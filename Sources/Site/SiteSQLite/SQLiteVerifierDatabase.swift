import Foundation
import KioskPadCore
import Logging
import SQLKit
import SQLiteKit
import SQLiteNIO
import SiteSQL
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The reference verifier's SQLite database file (`server.sqlite.path`): one writer
/// connection, taken by one transaction at a time, and reader connections beside it (WAL:
/// readers never wait for the writer). Every connection waits at most ``busyTimeout`` for a
/// lock another process holds; the file is made with mode 0600. `synchronous=FULL`, because
/// in WAL mode only FULL makes a commit survive a power cut. Errors are ``Failure``s that
/// name the file and say what is wrong, never a bound value.
public final class SQLiteVerifierDatabase: SiteDatabase {
    public var engine: SiteEngine { .sqlite }

    /// A use of the database that failed, as a sentence naming the file.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String

        public init(description: String) {
            self.description = description
        }
    }

    public let path: String
    public let busyTimeout: Duration
    private let writer: SQLiteConnection
    private let readers: [SQLiteConnection]
    private let writerLock = WriterLock()
    private let nextReader = ReaderTurn()

    /// Opens (creating, mode 0600, with its directory, mode 0700) the database at `path`.
    public static func open(path: String, busyTimeout: Duration, readers: Int = 2, logger: Logger) async throws -> SQLiteVerifierDatabase {
        try prepareFile(path)
        var quiet = logger
        quiet.logLevel = max(logger.logLevel, .warning)  // sqlite-nio logs statements at debug
        var connections: [SQLiteConnection] = []
        do {
            for index in 0...max(readers, 1) {
                let connection = try await SQLiteConnection.open(storage: .file(path: path), logger: quiet)
                connections.append(connection)
                // First: sqlite-nio's own busy handler waits forever.
                _ = try await connection.query("PRAGMA busy_timeout = \(busyTimeout.wholeMilliseconds)")
                if index == 0 {
                    let mode = try await connection.query("PRAGMA journal_mode = WAL").first?.columns.first?.data.string
                    guard mode?.lowercased() == "wal" else {
                        throw Failure(
                            description: "\(path) cannot be switched to WAL (journal_mode is \(mode ?? "unknown")); is the file or its directory read-only?")
                    }
                }
                _ = try await connection.query("PRAGMA synchronous = FULL")
                _ = try await connection.query("PRAGMA foreign_keys = ON")
            }
        } catch {
            for connection in connections { try? await connection.close() }
            throw describe(error, path: path, busyTimeout: busyTimeout)
        }
        return SQLiteVerifierDatabase(path: path, busyTimeout: busyTimeout, writer: connections[0], readers: Array(connections.dropFirst()))
    }

    private init(path: String, busyTimeout: Duration, writer: SQLiteConnection, readers: [SQLiteConnection]) {
        self.path = path
        self.busyTimeout = busyTimeout
        self.writer = writer
        self.readers = readers
    }

    /// Closes every connection (the last one out checkpoints the WAL into the file).
    public func close() async {
        for connection in readers { try? await connection.close() }
        try? await writer.close()
    }

    /// Runs `body`'s statements outside any write transaction, on a reader connection.
    public func engineRead<R: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        try await onReader { try await body($0.sql(queryLogLevel: nil)) }
    }

    /// Runs `body` in one write transaction (`BEGIN IMMEDIATE`), committed when it returns
    /// and rolled back when it throws. One at a time in this process; another process's
    /// writer is waited for up to the busy timeout.
    public func engineWrite<R: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        try await inWriteTransaction { try await body($0.sql(queryLogLevel: nil)) }
    }

    /// As ``write(_:)``: every change goes through the one writer.
    public func engineWriteEach<R: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        try await engineWrite(body)
    }

    /// As ``read(_:)``, with sqlite-nio's own connection (tests and tools read raw rows so).
    public func onReader<R: Sendable>(_ body: (SQLiteConnection) async throws -> R) async throws -> R {
        do {
            return try await body(readers[nextReader.next(of: readers.count)])
        } catch {
            throw describe(error)
        }
    }

    /// As ``write(_:)``, with sqlite-nio's own connection.
    public func inWriteTransaction<R: Sendable>(_ body: (SQLiteConnection) async throws -> R) async throws -> R {
        await writerLock.lock()
        defer { writerLock.unlock() }
        do {
            _ = try await writer.query("BEGIN IMMEDIATE")
        } catch {
            throw describe(error)
        }
        do {
            let result = try await body(writer)
            _ = try await writer.query("COMMIT")
            return result
        } catch {
            _ = try? await writer.query("ROLLBACK")
            throw describe(error)
        }
    }

    /// Writes a consistent copy of the database to `destination` (`VACUUM INTO`, from one
    /// read snapshot, so writes may go on meanwhile), mode 0600. The file must not exist.
    public func backup(to destination: String) async throws {
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw Failure(description: "\(destination) exists; a backup is written to a new file")
        }
        let previous = umask(0o077)
        defer { umask(previous) }
        _ = try await onReader { try await $0.query("VACUUM INTO ?", [.text(destination)]) }
    }

    /// Nil when the database answers now, else why not.
    public func healthProblem() async -> String? {
        do {
            _ = try await onReader { try await $0.query("SELECT 1") }
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// The directory (0700) and an empty file (0600) if they are missing; both must be
    /// writable (SQLite would open a WAL file on a read-only mount for reading, and fail
    /// only at the first write: an attempt's).
    private static func prepareFile(_ path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty && !FileManager.default.fileExists(atPath: directory) {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw Failure(description: "cannot make the directory \(directory) for \(path): \(String(cString: strerror(errno)))")
            }
        }
        let fd = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        if fd >= 0 { Glibc.close(fd) }
        for (what, target) in [(path, path), ("the directory of \(path)", directory.isEmpty ? "." : directory)] where access(target, W_OK) != 0 {
            let reason = String(cString: strerror(errno))
            if errno == EROFS || errno == EACCES || errno == EPERM {
                throw Failure(description: "\(path) cannot be written: \(what == path ? "it" : what) is read-only (\(reason))")
            }
            throw Failure(description: "cannot create \(path): \(reason)")
        }
    }

    func describe(_ error: any Error) -> any Error {
        SQLiteVerifierDatabase.describe(error, path: path, busyTimeout: busyTimeout)
    }

    /// A sentence for `error` that names the file: what SQLite said, and what it means here.
    static func describe(_ error: any Error, path: String, busyTimeout: Duration) -> any Error {
        guard let error = error as? SQLiteError else { return error }
        let said = error.message
        // SQLite says "disk I/O error" when the disk is full as it makes its shared-memory or
        // WAL file: the free space says which it is (checked only on this error path).
        if error.reason != .full, said.contains("I/O error"), diskIsFull(directoryOf: path) {
            return Failure(description: "\(path) cannot be written: the disk is full (\(said))")
        }
        switch error.reason {
        case .notADatabase:
            return Failure(description: "\(path) is not a SQLite database (\(said))")
        case .readOnly:
            return Failure(description: "\(path) cannot be written: it or its directory is read-only (\(said))")
        case .full:
            return Failure(description: "\(path) cannot be written: the disk is full (\(said))")
        case .busy, .locked:
            return Failure(description: "\(path) is locked by another process for longer than the busy timeout (\(busyTimeout.wholeMilliseconds) ms)")
        case .cantOpen:
            return Failure(description: "\(path) cannot be opened (\(said))")
        case .corrupt:
            return Failure(description: "\(path) is damaged (\(said)); restore it from a backup")
        case .ioError:
            return Failure(description: "\(path): input/output error (\(said))")
        default:
            return Failure(description: "\(path): \(said)")
        }
    }
}

/// Whether the file system holding `path` has less than 64 KiB left for an unprivileged writer.
func diskIsFull(directoryOf path: String) -> Bool {
    var stats = statvfs()
    guard statvfs((path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent, &stats) == 0 else {
        return false
    }
    return UInt64(stats.f_bavail) * UInt64(stats.f_frsize) < 65_536
}

/// One writer at a time, first come first served, across suspension points.
final class WriterLock: Sendable {
    private let state = Mutex<(held: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    func lock() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let free = state.withLock { state in
                guard state.held else {
                    state.held = true
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if free { continuation.resume() }
        }
    }

    func unlock() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.held = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}

/// Which reader connection is next (round robin).
final class ReaderTurn: Sendable {
    private let counter = Mutex(0)

    func next(of count: Int) -> Int {
        counter.withLock { value in
            value = (value + 1) % count
            return value
        }
    }
}
