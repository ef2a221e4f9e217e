import Foundation

/// Threads of their own for work that blocks or burns a thread (hashing, write and fsync),
/// so it never holds one of Swift's cooperative threads, which on a 2-core Pi are two.
/// Work waits in lanes: a thread takes the first job of the first lane that has one, so
/// lane 0 goes ahead of lane 1. Each lane's queue is bounded; over it, ``run(lane:_:)``
/// throws ``Full`` at once. A lane may also be held to fewer running jobs than there are
/// threads, so that the others stay free for the lanes before it. With one thread, jobs
/// run in the order they were queued.
/// Threads start at the first job; idle ones wait on a condition: no timer, no wake-up.
public final class WorkThreads: @unchecked Sendable {
    // @unchecked: `lanes`, `running` and `started` are guarded by `condition`; the rest is fixed.

    /// `lane`'s queue was full: the work was not run.
    public struct Full: Error, CustomStringConvertible {
        public let lane: Int
        public var description: String { "too much work waiting (lane \(lane))" }
    }

    /// One thread of its own for the door's file writes and fsyncs (journal, forwarder
    /// position, replica), in order.
    public static let files = WorkThreads(name: "kp-files", threads: 1, queueLimits: [4_096])

    /// One thread of its own for waiting until another thread has ended (a key source's or
    /// a door input's at shutdown), which can take up to their stop timeouts.
    public static let waits = WorkThreads(name: "kp-waits", threads: 1, queueLimits: [256])

    public let name: String
    public let threadCount: Int
    private let limits: [Int]
    private let runningLimits: [Int]
    private let condition = NSCondition()
    private var lanes: [[@Sendable () -> Void]]
    private var running: [Int]
    private var started = false

    /// `threads` threads named `name-N`; one lane per entry of `queueLimits`, in priority
    /// order. `runningLimits` (one per lane, default: every thread) caps the jobs of a lane
    /// that run at once.
    public init(name: String, threads: Int, queueLimits: [Int], runningLimits: [Int]? = nil) {
        let count = max(1, threads)
        self.name = name
        threadCount = count
        limits = queueLimits.map { max(1, $0) }
        self.runningLimits = (runningLimits ?? queueLimits.map { _ in count }).map { max(1, $0) }
        lanes = Array(repeating: [], count: queueLimits.count)
        running = Array(repeating: 0, count: queueLimits.count)
    }

    /// Runs `work` on one of the threads and returns its result; the caller's task is
    /// suspended meanwhile, not blocked.
    public func run<R: Sendable>(lane: Int = 0, _ work: @escaping @Sendable () throws -> R) async throws -> R {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<R, any Error>) in
            guard enqueue({ continuation.resume(with: Result { try work() }) }, lane: lane) else {
                continuation.resume(throwing: Full(lane: lane))
                return
            }
        }
    }

    /// Jobs waiting now in each lane.
    public var waiting: [Int] {
        condition.lock()
        defer { condition.unlock() }
        return lanes.map(\.count)
    }

    private func enqueue(_ job: @escaping @Sendable () -> Void, lane: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard lanes[lane].count < limits[lane] else { return false }
        lanes[lane].append(job)
        if !started {
            started = true
            for index in 0..<threadCount {
                // Named from inside: a name set before start() does not reach the kernel here.
                Thread { [self] in
                    nameCurrentThread(threadCount == 1 ? name : "\(name)-\(index)")
                    work()
                }.start()
            }
        }
        condition.signal()
        return true
    }

    /// A thread: the first job of the first lane that has one and is under its running
    /// limit; waits while there is none.
    private func work() {
        while true {
            condition.lock()
            let taken = readyLane()
            let job = lanes[taken].removeFirst()
            running[taken] += 1
            condition.unlock()
            job()
            condition.lock()
            running[taken] -= 1
            // A job of this lane may have waited for the limit, on another thread.
            if !lanes[taken].isEmpty { condition.signal() }
            condition.unlock()
        }
    }

    /// With `condition` locked: the first lane that has a job and is under its running
    /// limit, waiting on `condition` until there is one.
    private func readyLane() -> Int {
        while true {
            if let lane = lanes.indices.first(where: { !lanes[$0].isEmpty && running[$0] < runningLimits[$0] }) { return lane }
            condition.wait()
        }
    }
}
