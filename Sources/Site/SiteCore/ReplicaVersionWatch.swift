import Foundation
import Synchronization

/// Tells waiting doors when the replica's version passes the one they hold (`POST /v1/watch`).
/// One reader per server looks at the version (``read``, one indexed row) every ``interval``
/// while any door waits, and resumes every waiter whose version it passed; so a change
/// committed on any instance of the site, by any writer, reaches the doors waiting on each
/// instance within about ``interval``, and a thousand waiting doors cost one read an interval,
/// not a thousand. The waits are continuations: no thread is held while a door waits.
///
/// With ``commands`` it also wakes a door for a remote command (unlock, lock) numbered above
/// the one it last took: the same read lists the commands still live (a few at most: each
/// lives 30 s), and ``poke()`` reads at once when this instance stored one.
///
/// With ``checkIns`` it also wakes an adopted door that should check in now: the site's
/// settings version passed the newest one the door knows, or a rotation of its secret waits
/// (``CheckInSignals``, read in one statement, only while such a door waits).
public final class ReplicaVersionWatch: Sendable {
    /// Why a waiting door is answered: the version read (or the one it holds), and whether it
    /// should check in now.
    public struct Wake: Sendable, Equatable {
        public let version: Int64
        public let checkIn: Bool

        public init(version: Int64, checkIn: Bool) {
            self.version = version
            self.checkIn = checkIn
        }
    }

    /// What tells a waiting door to check in: the settings version, and the doors whose
    /// secret's rotation waits.
    public struct CheckInSignals: Sendable {
        public let settingsVersion: Int64
        public let rotating: Set<String>

        public init(settingsVersion: Int64, rotating: Set<String>) {
            self.settingsVersion = settingsVersion
            self.rotating = rotating
        }

        func tell(_ door: (terminal: String, settingsAbove: Int64)) -> Bool {
            settingsVersion > door.settingsAbove || rotating.contains(door.terminal)
        }
    }

    private struct Waiter {
        let have: Int64
        /// The door's id and the last command it took, when it waits for commands too.
        let commandsFor: (terminal: String, after: Int64)?
        /// The door's id and the newest settings version it knows, when it checks in.
        let checkInFor: (terminal: String, settingsAbove: Int64)?
        let continuation: CheckedContinuation<Wake?, Never>
    }

    private struct State {
        var waiters: [UInt64: Waiter] = [:]
        var nextID: UInt64 = 0
        var polling = false
        /// The version last read (nil before the first read).
        var latest: Int64?
    }

    private let state = Mutex(State())
    private let read: @Sendable () async throws -> Int64
    /// The remote commands still live: number and door.
    private let commands: (@Sendable () async throws -> [(id: Int64, terminal: String)])?
    /// The settings version and the doors whose rotation waits.
    private let checkIns: (@Sendable () async throws -> CheckInSignals)?
    /// How often the version is read while doors wait.
    public let interval: Duration

    public init(
        interval: Duration = .milliseconds(250), read: @escaping @Sendable () async throws -> Int64,
        commands: (@Sendable () async throws -> [(id: Int64, terminal: String)])? = nil,
        checkIns: (@Sendable () async throws -> CheckInSignals)? = nil
    ) {
        self.interval = interval
        self.read = read
        self.commands = commands
        self.checkIns = checkIns
    }

    /// Doors waiting now.
    public var waiting: Int { state.withLock { $0.waiters.count } }

    /// The version once it is above `have`, or nil when `limit` passed first (or the task was
    /// cancelled). A version below `have` (a database restored from a backup) never answers:
    /// the door's own sync sees to that.
    public func change(from have: Int64, within limit: Duration) async -> Int64? {
        await change(from: have, commandsFor: nil, within: limit)
    }

    /// As ``change(from:within:)``, and also woken (with the version it last read, or `have`)
    /// when a live command for `terminal` is numbered above `after`.
    public func change(from have: Int64, commandsFor: (terminal: String, after: Int64)?, within limit: Duration) async -> Int64? {
        await wake(from: have, commandsFor: commandsFor, checkInFor: nil, within: limit)?.version
    }

    /// As ``change(from:commandsFor:within:)``, and also woken when `checkInFor`'s door should
    /// check in (``CheckInSignals``); a door that should is answered at once.
    public func wake(
        from have: Int64, commandsFor: (terminal: String, after: Int64)?, checkInFor: (terminal: String, settingsAbove: Int64)?, within limit: Duration
    ) async -> Wake? {
        if let latest = state.withLock({ $0.latest }), latest > have { return Wake(version: latest, checkIn: false) }
        if let checkInFor, let checkIns, let signals = try? await checkIns(), signals.tell(checkInFor) {
            return Wake(version: have, checkIn: true)
        }
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let startPolling = state.withLock { state -> Bool in
                    state.waiters[id] = Waiter(have: have, commandsFor: commandsFor, checkInFor: checkInFor, continuation: continuation)
                    defer { state.polling = true }
                    return !state.polling
                }
                if startPolling { Task { await self.poll() } }
                Task {
                    try? await Task.sleep(for: limit)
                    self.resume(id, with: nil)
                }
            }
        } onCancel: {
            resume(id, with: nil)
        }
    }

    /// Resumes waiter `id`, if it still waits.
    private func resume(_ id: UInt64, with wake: Wake?) {
        state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume(returning: wake)
    }

    /// Reads at once (this instance stored a command), when anyone waits.
    public func poke() {
        guard state.withLock({ !$0.waiters.isEmpty }) else { return }
        Task { _ = await self.readOnce(polling: false) }
    }

    /// Reads the version every interval while anyone waits; stops when no one does.
    private func poll() async {
        while await readOnce(polling: true) {
            try? await Task.sleep(for: interval)
        }
    }

    /// One read: resumes every waiter it answers; false when no one waits any more (the
    /// poll's own read then stops polling; a poke's leaves that to the poll).
    private func readOnce(polling: Bool) async -> Bool {
        let version = try? await read()
        // The commands' read only while a door that takes them waits.
        let wantsCommands = state.withLock { $0.waiters.values.contains { $0.commandsFor != nil } }
        let live = wantsCommands ? ((try? await commands?()) ?? []) : []
        // The check-in signals only while a door that checks in waits.
        let wantsCheckIns = state.withLock { $0.waiters.values.contains { $0.checkInFor != nil } }
        let signals = wantsCheckIns ? (try? await checkIns?()) : nil
        let (ready, goOn) = state.withLock { state -> ([(CheckedContinuation<Wake?, Never>, Wake)], Bool) in
            if let version { state.latest = version }
            var ready: [(CheckedContinuation<Wake?, Never>, Wake)] = []
            for (id, waiter) in state.waiters {
                let moved = version.map { $0 > waiter.have } ?? false
                let commanded = waiter.commandsFor.map { door in live.contains { $0.terminal == door.terminal && $0.id > door.after } } ?? false
                let checkIn = waiter.checkInFor.map { signals?.tell($0) ?? false } ?? false
                guard moved || commanded || checkIn else { continue }
                ready.append((waiter.continuation, Wake(version: moved ? version ?? waiter.have : waiter.have, checkIn: checkIn)))
                state.waiters[id] = nil
            }
            if polling, state.waiters.isEmpty { state.polling = false }
            return (ready, !state.waiters.isEmpty)
        }
        for (continuation, answer) in ready { continuation.resume(returning: answer) }
        return goOn
    }
}
