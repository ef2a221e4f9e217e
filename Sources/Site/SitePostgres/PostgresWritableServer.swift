import Foundation
import Logging
import PostgresNIO
import Synchronization

/// Which of a site's PostgreSQL servers an instance writes to: the primary of a primary and
/// its streaming-replication standbys. After a failover (the primary lost, a standby
/// promoted with `pg_ctl promote`) the instance finds the new primary by itself: a use that
/// fails for want of a server (no connection, a timeout, a read-only or shutting-down server)
/// makes it ask every server `SELECT pg_is_in_recovery()` at once, at most once a second, and
/// use the one that is not in recovery. Nothing is retried meanwhile: the door is answered 503 and
/// asks another instance, or decides from its replica.
final class PostgresWritableServer: Sendable {
    private struct State {
        var index = 0
        var looking = false
        var lastLook: ContinuousClock.Instant?
    }

    private let state = Mutex(State())
    /// The least time between two looks.
    static let lookInterval: Duration = .seconds(1)

    /// The server in use now.
    var index: Int { state.withLock { $0.index } }

    /// Claims the next look, unless one runs or ran within ``lookInterval``.
    func claimLook(now: ContinuousClock.Instant = .now) -> Bool {
        state.withLock { state in
            if state.looking { return false }
            if let last = state.lastLook, now - last < Self.lookInterval { return false }
            state.looking = true
            state.lastLook = now
            return true
        }
    }

    /// Ends a look; `found` is the writable server, if one was.
    func finishLook(found: Int?) -> (changed: Bool, index: Int) {
        state.withLock { state in
            state.looking = false
            guard let found, found != state.index else { return (false, state.index) }
            state.index = found
            return (true, found)
        }
    }
}

extension PostgresVerifierDatabase {
    /// Whether `error` says the server in use cannot serve writes now (so another may):
    /// no connection or no answer in time, SQLSTATE class 08 (connection), 25006 (read-only:
    /// a standby), 57P01-57P03 (shutting down, starting up). A constraint or syntax error does not.
    static func meansAnotherServer(_ error: any Error) -> Bool {
        if error is Failure { return true }
        guard let error = error as? PSQLError else { return false }
        guard let state = error.serverInfo?[.sqlState] else { return true }
        return state.hasPrefix("08") || state == "25006" || ["57P01", "57P02", "57P03"].contains(state)
    }

    /// After a failed use, looks for the writable server in the background (several servers only).
    func lookForWritable(after error: any Error) {
        guard clients.count > 1, Self.meansAnotherServer(error), writable.claimLook() else { return }
        Task { await look() }
    }

    /// Asks every server whether it is in recovery and uses one that is not; with one server,
    /// nothing. The instance runs this once before its first use.
    public func findWritable() async {
        guard clients.count > 1, writable.claimLook() else { return }
        // Called just after the pools' run() was handed to a task: let those tasks start first
        // (a lease before PostgresClient.run() logs a warning).
        try? await Task.sleep(for: .milliseconds(50))
        await look()
    }

    /// Asks every server at once and takes the first that says it is writable, without
    /// waiting for a dead one's connection timeout (the lowest index, should two say so).
    private func look() async {
        let found: Int? = await withTaskGroup(of: (Int, Bool).self) { group in
            for index in clients.indices {
                group.addTask { [self] in (index, await isWritable(index)) }
            }
            defer { group.cancelAll() }
            for await (index, writable) in group where writable { return index }
            return nil
        }
        let (changed, now) = writable.finishLook(found: found)
        if changed {
            logger.warning("the writable database server is now \(servers[now])", metadata: ["servers": "\(servers.joined(separator: ","))"])
        } else if found == nil {
            logger.warning("no writable database server among \(servers.joined(separator: ",")); doors are answered 503 meanwhile")
        }
    }

    /// Whether server `index` answers, within the time limit, that it is not in recovery.
    private func isWritable(_ index: Int) async -> Bool {
        let client = clients[index]
        let timeout = self.timeout
        let logger = self.logger
        return await withTaskGroup(of: Bool?.self) { group in
            group.addTask {
                let inRecovery = try? await client.withConnection { connection in
                    let rows = try await connection.query("SELECT pg_is_in_recovery()", logger: logger)
                    for try await value in rows.decode(Bool.self) { return value }
                    return true
                }
                return inRecovery == false
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            return (await group.next() ?? nil) ?? false
        }
    }
}
