import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child process started with posix_spawn through ``ClosingDescriptors`` and reaped with
/// waitpid by its owner alone: Foundation's `Process` lets children inherit the test
/// process's descriptors, and its wait can miss an exit.
public final class SpawnedChild: @unchecked Sendable {
    // @unchecked: `reaped` is guarded by `lock`; the descriptors are fixed after init.
    /// Where a standard stream goes.
    public enum Stream: Sendable {
        case null
        /// A pipe whose other end this object keeps (``input`` or ``output``/``errors``).
        case pipe
        /// Appended to this file.
        case file(String)
    }

    public let pid: pid_t
    /// The write end of stdin with `.pipe`.
    public let input: Int32?
    /// The read ends of stdout and stderr with `.pipe`.
    public let output: Int32?
    public let errors: Int32?
    private let lock = NSLock()
    private var status: Int32?

    public init(_ command: [String], stdin: Stream = .null, stdout: Stream = .null, stderr: Stream = .null) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var parentEnds: [Int32?] = [nil, nil, nil]
        var childEnds: [Int32] = []
        for (fd, stream) in [(Int32(0), stdin), (1, stdout), (2, stderr)] {
            switch stream {
            case .null:
                posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
            case .file(let path):
                posix_spawn_file_actions_addopen(&actions, fd, path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            case .pipe:
                var ends: [Int32] = [0, 0]
                guard pipe(&ends) == 0 else { throw SpawnError(message: "pipe: errno \(errno)") }
                for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
                let (childEnd, parentEnd) = fd == 0 ? (ends[0], ends[1]) : (ends[1], ends[0])
                posix_spawn_file_actions_adddup2(&actions, childEnd, fd)
                childEnds.append(childEnd)
                parentEnds[Int(fd)] = parentEnd
            }
        }
        let argv = ClosingDescriptors.argv(command)
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { for argument in cArguments { free(argument) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, cArguments, environ)
        for end in childEnds { close(end) }
        guard spawned == 0 else {
            for end in parentEnds.compactMap({ $0 }) { close(end) }
            throw SpawnError(message: "cannot start \(command.first ?? ""): errno \(spawned)")
        }
        self.pid = pid
        (input, output, errors) = (parentEnds[0], parentEnds[1], parentEnds[2])
    }

    deinit {
        _ = terminate()
        for end in [input, output, errors].compactMap({ $0 }) { close(end) }
    }

    /// Runs `command` to its end: its exit status and what it wrote to stdout.
    public static func run(_ command: [String]) throws -> (status: Int32, output: String) {
        let child = try SpawnedChild(command, stdout: .pipe)
        let output = child.readOutput()
        return (child.wait(), output)
    }

    /// Reads stdout to its end.
    public func readOutput() -> String {
        guard let output else { return "" }
        var data: [UInt8] = []
        SpawnedChild.read(output) { data += $0 }
        return String(decoding: data, as: UTF8.self)
    }

    /// Reads `descriptor` to its end (or an error), handing each chunk to `chunk`.
    public static func read(_ descriptor: Int32, chunk: (ArraySlice<UInt8>) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = Glibc.read(descriptor, &buffer, buffer.count)
            if count > 0 { chunk(buffer[0..<count]) } else if count == 0 || errno != EINTR { break }
        }
    }

    /// Writes to stdin.
    public func write(_ text: String) {
        guard let input else { return }
        _ = text.utf8CString.withUnsafeBufferPointer { Glibc.write(input, $0.baseAddress, text.utf8.count) }
    }

    /// Waits for the exit; its status (the exit code, or 128 + the signal).
    @discardableResult
    public func wait() -> Int32 {
        if let done = lock.withLock({ status }) { return done }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
        return record(raw)
    }

    public var isRunning: Bool {
        lock.withLock {
            guard status == nil else { return false }
            var raw: Int32 = 0
            guard waitpid(pid, &raw, WNOHANG) == pid else { return true }
            status = SpawnedChild.decode(raw)
            return false
        }
    }

    /// For a `deinit` or `defer`, which cannot wait: SIGKILL now (no signal mask holds it
    /// back), so the child ends even if this process exits first; reaped on a thread of its own.
    public func terminateInBackground() {
        guard lock.withLock({ status }) == nil else { return }
        kill(pid, SIGKILL)
        Thread { self.wait() }.start()
    }

    /// `signal` now, SIGKILL after 3 s if it is still there; then reaped. Its status.
    @discardableResult
    public func terminate(_ signal: Int32 = SIGTERM) -> Int32 {
        if let done = lock.withLock({ status }) { return done }
        kill(pid, signal)
        for _ in 0..<300 where isRunning { usleep(10_000) }
        if isRunning { kill(pid, SIGKILL) }
        return wait()
    }

    private func record(_ raw: Int32) -> Int32 {
        lock.withLock {
            if status == nil { status = SpawnedChild.decode(raw) }
            return status ?? 0
        }
    }

    private static func decode(_ raw: Int32) -> Int32 {
        raw & 0x7f == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
    }

    public struct SpawnError: Error, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }
}
