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
    /// waiting for a dead one's connection timeout. The look ends at the first yes, when all
    /// said no, or at the time limit, whatever a server's query is still doing: a query that
    /// ignores cancellation (PostgresNIO does not end one when its task is cancelled) must not
    /// hold the look open, since no other look starts while one runs (in a fault-suite run an
    /// instance never followed a failover, and logged no look after it).
    private func look() async {
        let found = await WritableLookRace.first(of: clients.count, within: timeout) { [self] index in
            await isWritable(index)
        }
        let (changed, now) = writable.finishLook(found: found)
        if changed {
            logger.warning("the writable database server is now \(servers[now])", metadata: ["servers": "\(servers.joined(separator: ","))"])
        } else if found == nil {
            logger.warning("no writable database server among \(servers.joined(separator: ",")); doors are answered 503 meanwhile")
        }
    }

    /// Whether server `index` answers that it is not in recovery (no time limit here: the
    /// look's race has it).
    private func isWritable(_ index: Int) async -> Bool {
        let client = clients[index]
        let logger = self.logger
        let inRecovery = try? await client.withConnection { connection in
            let rows = try await connection.query("SELECT pg_is_in_recovery()", logger: logger)
            for try await value in rows.decode(Bool.self) { return value }
            return true
        }
        return inRecovery == false
    }
}

/// One look's race among the servers: each asked in a task of its own, the answer the first
/// server that says yes, nil when all said no or the time ran out. Stragglers finish alone and
/// are ignored.
final class WritableLookRace: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Int?, Never>?
        var remaining: Int
    }

    private let state: Mutex<State>

    private init(remaining: Int) { state = Mutex(State(remaining: remaining)) }

    static func first(of count: Int, within limit: Duration, _ check: @escaping @Sendable (Int) async -> Bool) async -> Int? {
        guard count > 0 else { return nil }
        let race = WritableLookRace(remaining: count)
        return await withCheckedContinuation { continuation in
            race.state.withLock { $0.continuation = continuation }
            for index in 0..<count {
                Task { race.answered(index, writable: await check(index)) }
            }
            Task {
                try? await Task.sleep(for: limit)
                race.resume(nil)
            }
        }
    }

    private func answered(_ index: Int, writable: Bool) {
        let allSaidNo = state.withLock { state -> Bool in
            state.remaining -= 1
            return state.remaining == 0
        }
        if writable {
            resume(index)
        } else if allSaidNo {
            resume(nil)
        }
    }

    private func resume(_ answer: Int?) {
        let continuation = state.withLock { state -> CheckedContinuation<Int?, Never>? in
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: answer)
    }
}
