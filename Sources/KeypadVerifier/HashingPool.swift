import Foundation
import KeypadCore

/// Threads of its own for the slow hashes (PBKDF2 of PINs, cards, codes and administrators'
/// passwords), so a hash never holds one of Swift's cooperative threads, which on a 2-core
/// Pi are two. Door attempts go ahead of console work; each lane's queue is bounded, and
/// work over the bound is refused at once (``Busy``) rather than queued without end.
/// Idle threads wait on a condition: no timer, no wake-up.
public final class HashingPool: @unchecked Sendable {
    // @unchecked: `queues` and `started` are guarded by `condition`; the rest is fixed.

    /// Who is waiting: a door's attempt, or the console (logins, new hashes).
    public enum Lane: Sendable {
        case door
        case console
    }

    /// The lane's queue was full: nothing was hashed. A door attempt becomes "verifier
    /// unavailable" (never a grant); a console login is answered 429.
    public struct Busy: Error, CustomStringConvertible {
        public let lane: Lane
        public var description: String { "too many hashes waiting (\(lane) lane); try again shortly" }
    }

    /// One thread per core; up to 1,024 door hashes and 16 console hashes waiting.
    public static let shared = HashingPool(threads: ProcessInfo.processInfo.activeProcessorCount, doorQueue: 1_024, consoleQueue: 16)

    public let threadCount: Int
    private let limits: (door: Int, console: Int)
    private let condition = NSCondition()
    private var queues: (door: [@Sendable () -> Void], console: [@Sendable () -> Void]) = ([], [])
    private var started = false

    public init(threads: Int, doorQueue: Int, consoleQueue: Int) {
        threadCount = max(1, threads)
        limits = (max(1, doorQueue), max(1, consoleQueue))
    }

    /// Runs `work` on one of the pool's threads and returns its result; throws ``Busy`` when
    /// `lane`'s queue is full. The caller's task is suspended meanwhile, not blocked.
    public func run<R: Sendable>(_ lane: Lane, _ work: @escaping @Sendable () throws -> R) async throws -> R {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<R, any Error>) in
            let job: @Sendable () -> Void = { continuation.resume(with: Result { try work() }) }
            guard enqueue(job, lane) else {
                continuation.resume(throwing: Busy(lane: lane))
                return
            }
        }
    }

    /// Hashes waiting now in each lane (for tests and metrics).
    public var waiting: (door: Int, console: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (queues.door.count, queues.console.count)
    }

    private func enqueue(_ job: @escaping @Sendable () -> Void, _ lane: Lane) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        switch lane {
        case .door:
            guard queues.door.count < limits.door else { return false }
            queues.door.append(job)
        case .console:
            guard queues.console.count < limits.console else { return false }
            queues.console.append(job)
        }
        if !started {
            started = true
            for index in 0..<threadCount {
                // Named from inside: a name set before start() does not reach the kernel here.
                Thread { [self] in
                    Thread.current.name = "kp-hash-\(index)"
                    work()
                }.start()
            }
        }
        condition.signal()
        return true
    }

    /// A pool thread: the door lane first, then the console's; waits when both are empty.
    private func work() {
        while true {
            condition.lock()
            while queues.door.isEmpty && queues.console.isEmpty { condition.wait() }
            let job = queues.door.isEmpty ? queues.console.removeFirst() : queues.door.removeFirst()
            condition.unlock()
            job()
        }
    }
}

extension HashingPool {
    /// ``PINHash/make(pin:iterations:)`` on one of the pool's threads, in `lane`.
    public func makeHash(_ pin: SecretDigits, iterations: Int = PINHash.defaultIterations, lane: Lane) async throws -> PINHash {
        try await run(lane) { try PINHash.make(pin: pin, iterations: iterations) }
    }
}
