import Foundation
import KioskPadCore
import Logging
import NIOSSL
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// The reference verifier's PostgreSQL database: a connection pool (run it as a service),
/// a time limit on every use, and errors described without anything secret. Every
/// connection starts with `statement_timeout` and `idle_in_transaction_session_timeout`
/// at the time limit, so a statement or an abandoned transaction cannot hold a terminal's
/// lockout row longer than that; the pool reconnects by itself when the database returns.
/// Given several servers (a primary and its standbys), it keeps a pool for each and uses the
/// one that is writable, looking again when a use fails (``PostgresWritableServer``).
public final class PostgresVerifierDatabase: Service, Sendable {
    /// A use of the database that did not finish in time, or failed; the text names no secret.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// One pool per server, in the order configured.
    public let clients: [PostgresClient]
    /// The servers, `host:port`, in the same order (for messages).
    public let servers: [String]
    /// Which server is used, and when it was last looked for.
    let writable: PostgresWritableServer
    /// The pool of the server in use.
    public var client: PostgresClient { clients[writable.index] }
    /// The server in use, `host:port`.
    public var serverInUse: String { servers[writable.index] }
    public let timeout: Duration
    public let logger: Logger
    public let poolSize: Int
    /// Uses under way (waiting for a connection or holding one), and connections held (for
    /// `/metrics`).
    private let usage = Mutex<(active: Int, inUse: Int)>((0, 0))

    /// Connections in use, uses waiting for one, and the pool's size, now.
    public var poolUsage: (inUse: Int, waiting: Int, size: Int) {
        let (active, inUse) = usage.withLock { $0 }
        return (inUse, active - inUse, poolSize)
    }

    /// A pool for `user`@`host`:`port`/`database`. `tls` nil: no TLS (loopback); else TLS
    /// with this configuration (the certificate checked). `timeout`: the most one use of the
    /// database may take, waiting for a connection included.
    public convenience init(
        host: String, port: Int, user: String, database: String, password: String?, tls: TLSConfiguration?,
        poolSize: Int, timeout: Duration, logger: Logger
    ) {
        self.init(
            servers: [(host, port)], user: user, database: database, password: password, tls: tls, poolSize: poolSize, timeout: timeout, logger: logger)
    }

    /// Pools for each of `servers` (a primary and its standbys, in any order); the first is
    /// used until ``findWritable()`` or a failed use finds another writable.
    public init(
        servers: [(host: String, port: Int)], user: String, database: String, password: String?, tls: TLSConfiguration?,
        poolSize: Int, timeout: Duration, logger: Logger
    ) {
        precondition(!servers.isEmpty, "a database has a server")
        clients = servers.map { server in
            var configuration = PostgresClient.Configuration(
                host: server.host, port: server.port, username: user, password: password, database: database, tls: tls.map { .require($0) } ?? .disable)
            configuration.options.maximumConnections = poolSize
            configuration.options.connectTimeout = timeout
            let milliseconds = String(timeout.wholeMilliseconds)
            configuration.options.additionalStartupParameters = [
                ("statement_timeout", milliseconds), ("idle_in_transaction_session_timeout", milliseconds),
                ("application_name", "kioskpad-verifier"),
            ]
            return PostgresClient(configuration: configuration, backgroundLogger: logger)
        }
        self.servers = servers.map { "\($0.host.contains(":") ? "[\($0.host)]" : $0.host):\($0.port)" }
        writable = PostgresWritableServer()
        self.timeout = timeout
        self.poolSize = poolSize
        self.logger = logger
    }

    /// Whether the server at `host`:`port` takes TLS, asked with one connection before the
    /// pool starts: a server with `ssl = off` answers the TLS request with a plain "no" at
    /// once, which the pool would only retry until its timeout. Throws a ``Failure`` saying
    /// so; any other outcome (a connection, or another error, which the pool reports) passes.
    public static func checkTLSOffered(
        host: String, port: Int, user: String, database: String, password: String?, tls: TLSConfiguration, timeout: Duration, logger: Logger
    ) async throws {
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: .require(try NIOSSLContext(configuration: tls)))
        configuration.options.connectTimeout = .nanoseconds(timeout.wholeNanoseconds)
        do {
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
            try? await connection.close()
        } catch let error as PSQLError where error.code == .sslUnsupported {
            throw Failure(description: "the server at \(host):\(port) does not offer TLS (its ssl setting is off)")
        } catch {
            return
        }
    }

    /// Runs the pool until cancelled (a ServiceGroup, or a task of the caller's).
    public func run() async {
        await withDiscardingTaskGroup { group in
            for client in clients { group.addTask { await client.run() } }
        }
    }

    /// Runs `body` on a pooled connection; throws a ``Failure`` when the database fails or
    /// `body` takes longer than ``timeout``, waiting for a connection included (the task is
    /// cancelled). Errors `body` throws itself pass through.
    public func use<R: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> R) async throws -> R {
        try await withDeadline { [self] in try await leased(body) }
    }

    /// Leases a connection for `body`, counted in ``poolUsage``.
    /// A connection the pool could not give (its error is the pool's, e.g. its circuit
    /// breaker after failed connections), reported as a ``Failure``.
    private func leased<R: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> R) async throws -> R {
        usage.withLock { $0.active += 1 }
        defer { usage.withLock { $0.active -= 1 } }
        let leased = Mutex(false)
        do {
            return try await clients[writable.index].withConnection { [self] connection in
                leased.withLock { $0 = true }
                usage.withLock { $0.inUse += 1 }
                defer { usage.withLock { $0.inUse -= 1 } }
                return try await body(connection)
            }
        } catch  where !leased.withLock({ $0 }) && !(error is CancellationError) {
            throw Failure(description: "no connection to the database at \(servers[writable.index]): \(PostgresVerifierDatabase.describe(error))")
        }
    }

    /// As ``use(_:)``, inside a transaction (committed when `body` returns, rolled back when it throws).
    public func transaction<R: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> R) async throws -> R {
        try await withDeadline { [self, logger] in
            try await leased { connection in
                try await connection.query("BEGIN", logger: logger)
                do {
                    let result = try await body(connection)
                    try await connection.query("COMMIT", logger: logger)
                    return result
                } catch {
                    _ = try? await connection.query("ROLLBACK", logger: logger)
                    throw error
                }
            }
        }
    }

    private func withDeadline<R: Sendable>(_ operation: @escaping @Sendable () async throws -> R) async throws -> R {
        let timeout = self.timeout
        do {
            return try await withThrowingTaskGroup(of: R?.self) { group in
                group.addTask { try await operation() }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let result = first else {
                    throw Failure(description: "the database did not answer within \(timeout)")
                }
                return result
            }
        } catch let error as PSQLError {
            lookForWritable(after: error)
            throw Failure(description: PostgresVerifierDatabase.describe(error))
        } catch let failure as Failure {
            lookForWritable(after: failure)
            throw failure
        } catch let error as PostgresDecodingError {
            throw Failure(description: "database: a column did not decode (\(error.columnName))")
        }
    }

    /// What went wrong, without the query's bound values: the server's SQLSTATE and message,
    /// or the client's error code and its cause.
    public static func describe(_ error: any Error) -> String {
        if let failure = error as? Failure { return failure.description }
        guard let error = error as? PSQLError else { return "\(error)" }
        if let info = error.serverInfo {
            return "database: \(info[.message] ?? "error") (SQLSTATE \(info[.sqlState] ?? "?"))"
        }
        if let underlying = error.underlying { return "database \(error.code): \(underlying)" }
        return "database: \(error.code)"
    }
}
