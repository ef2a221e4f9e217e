import KioskPadThreads

// The custom executors use the experimental executor SPI of Swift 6.3 (`_Concurrency`'s
// ExperimentalCustomExecutors). Without the QuietExecutors trait, or on an older
// compiler, the process runs on the standard executors instead (Main.swift).
#if QuietExecutors && compiler(>=6.3)
    @_spi(ExperimentalCustomExecutors) @_spi(ExperimentalScheduling) import _Concurrency
    import Foundation
    import KioskPadCore

    /// The process's default executor: a fixed pool of named worker threads (`kp-pool-N`) and
    /// one timer thread (`kp-timers`) for `Task.sleep`. Idle, every thread is blocked on a
    /// condition variable with no timeout; libdispatch's pool, which the Swift runtime uses by
    /// default on Linux, wakes once a second to watch its workers. Blocking work (a keypad
    /// read, the GPIO scan) runs on threads of its own, never here.
    final class WorkerPoolExecutor: TaskExecutor, SchedulingExecutor, @unchecked Sendable {
        // @unchecked: the only state is the JobBoard, which locks.
        let board = JobBoard<UnownedJob>()

        init(threads: Int) {
            for index in 0..<threads {
                startThread(name: "kp-pool-\(index)") { [self] in
                    while true { board.next().runSynchronously(on: asUnownedTaskExecutor()) }
                }
            }
            startThread(name: "kp-timers") { [board] in board.runTimers() }
        }

        func enqueue(_ job: consuming ExecutorJob) {
            board.push(UnownedJob(job))
        }

        func enqueue<C: Clock>(
            _ job: consuming ExecutorJob, after delay: C.Duration, tolerance: C.Duration?, clock: C
        ) {
            // Task.sleep arrives with ContinuousClock or SuspendingClock, both in Swift.Duration.
            guard let duration = delay as? Duration else {
                preconditionFailure("WorkerPoolExecutor schedules only clocks measured in Duration, not \(C.self)")
            }
            board.push(UnownedJob(job), at: JobBoard<UnownedJob>.now + max(.zero, duration))
        }

        var asSchedulingExecutor: (any SchedulingExecutor)? { self }
    }

    /// Starts a detached thread named `name` (as `/proc/PID/task/*/comm` shows it) that runs `body`.
    func startThread(name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            nameCurrentThread(name)
            body()
        }
        thread.stackSize = 512 * 1024
        thread.start()
    }
#endif
