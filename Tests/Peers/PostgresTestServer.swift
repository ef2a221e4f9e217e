import Foundation
import KeypadTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A real PostgreSQL server for tests (Debian's `postgresql` package, which
/// `scripts/test.sh` installs): `initdb` into a new temporary directory, a reserved loopback
/// port, password (SCRAM) logins over TCP, one database. ``stop()`` and ``start()`` take it
/// down and bring it back on the same port with the same data (an outage);
/// ``destroy()`` stops it and removes everything. Run as root, the server runs as the
/// `postgres` user (PostgreSQL refuses root).
public final class PostgresTestServer: @unchecked Sendable {
    // @unchecked: every property is set once in init; the server is driven by one test.
    public let port: Int
    public let user = "kioskpad"
    public let database = "kioskpad"
    public let password: String
    public let directory: URL
    /// A file holding ``password`` (for `server.postgres.password_file`).
    public let passwordFile: String
    private let binDirectory: String
    private let reserved: ClosedPort
    private let asPostgres: Bool

    /// Why the tests cannot start a server.
    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    /// `postgres://kioskpad@127.0.0.1:PORT/kioskpad`
    public var url: String { "postgres://\(user)@127.0.0.1:\(port)/\(database)" }

    /// At most two servers are set up (initdb, first start, createdb) at a time. Set-up is the
    /// CPU-heavy part; the suites ask for some forty servers at once, and on a 2-core machine
    /// with CPU steal that starved the servers already running: their tests' queries passed
    /// the store's 10 s deadline (a fresh-clone CI run, 26 November 2026). Callers wait on a
    /// thread of their own (``onOwnThread``), never on the concurrency pool.
    private static let settingUp = DispatchSemaphore(value: 2)

    public convenience init() throws {
        PostgresTestServer.settingUp.wait()
        defer { PostgresTestServer.settingUp.signal() }
        guard let bin = PostgresTestServer.findBinDirectory() else {
            throw Unavailable(description: "no PostgreSQL server found under /usr/lib/postgresql/*/bin: apt-get install postgresql (scripts/test.sh does)")
        }
        try self.init(binDirectory: bin, password: UUID().uuidString)
        try run(
            bin + "/initdb",
            [
                "-D", dataDirectory, "-U", user, "--pwfile", passwordFile, "--auth-local=trust", "--auth-host=scram-sha-256",
                "--no-sync", "-E", "UTF8", "--locale=C",
            ])
        try start()
        try run(bin + "/createdb", ["-h", directory.path, "-p", String(port), "-U", user, database])
    }

    /// A streaming-replication standby of `primary` (`pg_basebackup -R`, the same user,
    /// database and password), started on a loopback port of its own, in recovery until
    /// ``promote()``.
    public convenience init(standbyOf primary: PostgresTestServer) throws {
        PostgresTestServer.settingUp.wait()
        defer { PostgresTestServer.settingUp.signal() }
        try self.init(binDirectory: primary.binDirectory, password: primary.password)
        try run(
            binDirectory + "/pg_basebackup",
            [
                "-d", "host=127.0.0.1 port=\(primary.port) user=\(user) password=\(password)", "-D", dataDirectory, "-R", "-X", "stream",
                "--no-sync",
            ])
        try start()
    }

    /// A reserved port and a new directory (owned by `postgres` when we are root) holding the
    /// password file; no cluster yet.
    private init(binDirectory: String, password: String) throws {
        self.binDirectory = binDirectory
        reserved = try ClosedPort()
        port = reserved.port
        self.password = password
        asPostgres = getuid() == 0
        directory = URL(fileURLWithPath: "/tmp/kp-pg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        passwordFile = directory.appendingPathComponent("password").path
        try password.write(toFile: passwordFile, atomically: true, encoding: .utf8)
        if asPostgres { try run("/bin/chown", ["-R", "postgres:postgres", directory.path], asServerUser: false) }
    }

    /// Ends this standby's recovery (`pg_ctl promote`): it takes writes from now on.
    public func promote() throws {
        try run(binDirectory + "/pg_ctl", ["-D", dataDirectory, "-w", "promote"])
    }

    /// Stops the server at once, as a crash would (`-m immediate`: no checkpoint, sessions cut).
    public func crash() throws {
        try run(binDirectory + "/pg_ctl", ["-D", dataDirectory, "-m", "immediate", "-w", "stop"])
    }

    private var dataDirectory: String { directory.appendingPathComponent("data").path }

    /// Starts (or restarts) the server and waits until it accepts connections.
    public func start() throws {
        try run(
            binDirectory + "/pg_ctl",
            [
                "-D", dataDirectory, "-l", directory.appendingPathComponent("log").path, "-w", "-t", "60",
                "-o", "-p \(port) -k \(directory.path) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100",
                "start",
            ])
    }

    /// Stops the server (fast: open sessions are ended), as an outage would.
    public func stop() throws {
        try run(binDirectory + "/pg_ctl", ["-D", dataDirectory, "-m", "fast", "-w", "stop"])
    }

    /// Runs SQL as the database's owner (over the Unix socket) and returns psql-style output.
    @discardableResult
    public func sql(_ statement: String) throws -> String {
        try run(binDirectory + "/psql", ["-h", directory.path, "-p", String(port), "-U", user, "-d", database, "-At", "-c", statement])
    }

    /// ``sql(_:)`` from async code: psql runs and is waited for on a thread of its own.
    @discardableResult
    public func query(_ statement: String) async throws -> String {
        try await onOwnThread { try self.sql(statement) }
    }

    /// Runs a file of SQL (too long for one argument) as the database's owner.
    public func sql(file: String) throws {
        try run(binDirectory + "/psql", ["-h", directory.path, "-p", String(port), "-U", user, "-d", database, "-q", "-v", "ON_ERROR_STOP=1", "-f", file])
    }

    /// Stops the server if it runs and removes its directory.
    public func destroy() {
        _ = try? run(binDirectory + "/pg_ctl", ["-D", dataDirectory, "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs `tool` (as the `postgres` user when we are root) and returns its stdout; its
    /// stderr goes to `commands.log`, quoted in the error when it fails. posix_spawn and
    /// waitpid, not Foundation's Process, whose wait missed `runuser`'s exit here.
    @discardableResult
    private func run(_ tool: String, _ arguments: [String], asServerUser: Bool = true) throws -> String {
        let command = asPostgres && asServerUser ? ["/sbin/runuser", "-u", "postgres", "--", tool] + arguments : [tool] + arguments
        // Nothing of the test process (its servers' sockets) may live on in the database server.
        let argv = ClosingDescriptors.argv(command)
        let log = directory.appendingPathComponent("commands.log").path
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw Unavailable(description: "pipe: errno \(errno)") }
        var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
        posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { for argument in cArguments { free(argument) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, cArguments, environ)
        close(pipeEnds[1])
        guard spawned == 0 else {
            close(pipeEnds[0])
            throw Unavailable(description: "cannot start \(argv[0]): errno \(spawned)")
        }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(pipeEnds[0], &buffer, buffer.count)
            if count > 0 { output += buffer[0..<count] } else if count == 0 || errno != EINTR { break }
        }
        close(pipeEnds[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exitCode = (status >> 8) & 0xff
        guard status & 0x7f == 0 && exitCode == 0 else {
            let detail = (try? String(contentsOfFile: log, encoding: .utf8)).map { String($0.suffix(1500)) } ?? ""
            throw Unavailable(description: "\((tool as NSString).lastPathComponent) exited with status \(status): \(detail)")
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func findBinDirectory() -> String? {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return versions.compactMap(Int.init).sorted(by: >).map { "\(root)/\($0)/bin" }
            .first { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") }
    }
}
