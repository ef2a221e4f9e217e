import Foundation
import KioskPadCore
import KioskPadThreads

/// Threads of its own for the slow hashes (PBKDF2 of PINs, cards, codes and administrators'
/// passwords), so a hash never holds one of Swift's cooperative threads. Door attempts go
/// ahead of console work, and console work runs on one thread fewer than the pool has (with
/// two or more), so a door's hash never waits for a console one to end; each lane's queue
/// is bounded, and work over the bound is refused at once (``Busy``) rather than queued
/// without end.
public final class HashingPool: Sendable {
    /// Who is waiting: a door's attempt, or the console (logins, new hashes).
    public enum Lane: Int, Sendable {
        case door = 0
        case console = 1
    }

    /// The lane's queue was full: nothing was hashed. A door attempt becomes "verifier
    /// unavailable" (never a grant); a console login is answered 429.
    public struct Busy: Error, CustomStringConvertible {
        public let lane: Lane
        public var description: String { "too many hashes waiting (\(lane) lane); try again shortly" }
    }

    /// One thread per core (`kp-hash-N`); up to 1,024 door hashes and 16 console hashes
    /// waiting.
    public static let shared = HashingPool(threads: ProcessInfo.processInfo.activeProcessorCount, doorQueue: 1_024, consoleQueue: 16)

    private let threads: WorkThreads

    public init(threads: Int, doorQueue: Int, consoleQueue: Int) {
        let threads = max(1, threads)
        self.threads = WorkThreads(
            name: "kp-hash", threads: threads, queueLimits: [doorQueue, consoleQueue], runningLimits: [threads, max(1, threads - 1)])
    }

    /// Runs `work` on one of the pool's threads and returns its result; throws ``Busy`` when
    /// `lane`'s queue is full.
    public func run<R: Sendable>(_ lane: Lane, _ work: @escaping @Sendable () throws -> R) async throws -> R {
        do {
            return try await threads.run(lane: lane.rawValue, work)
        } catch is WorkThreads.Full {
            throw Busy(lane: lane)
        }
    }

    /// Hashes waiting now in each lane (for tests and metrics).
    public var waiting: (door: Int, console: Int) {
        let counts = threads.waiting
        return (counts[0], counts[1])
    }

    /// ``PINHash/make(pin:iterations:)`` on one of the pool's threads, in `lane`.
    public func makeHash(_ pin: SecretDigits, iterations: Int = PINHash.defaultIterations, lane: Lane) async throws -> PINHash {
        try await run(lane) { try PINHash.make(pin: pin, iterations: iterations) }
    }
}
