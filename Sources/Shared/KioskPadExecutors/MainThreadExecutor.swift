// The custom executors use the experimental executor SPI of Swift 6.3 (`_Concurrency`'s
// ExperimentalCustomExecutors). Without the QuietExecutors trait, or on an older
// compiler, the process runs on the standard executors instead (Main.swift).
#if QuietExecutors && compiler(>=6.3)
    @_spi(ExperimentalCustomExecutors) import _Concurrency
    #if canImport(Glibc)
        import Glibc
    #endif

    /// The main actor's executor: jobs run on the thread that calls ``run()`` (the process's
    /// main thread), which blocks on a condition variable while there are none.
    final class MainThreadExecutor: MainExecutor, @unchecked Sendable {
        // @unchecked: the board locks; `owner` is written once, before any job runs.
        private let board = JobBoard<UnownedJob>()
        private var owner: pthread_t?

        init() {}

        func enqueue(_ job: consuming ExecutorJob) {
            board.push(UnownedJob(job))
        }

        func run() throws {
            try runUntil { false }
        }

        func runUntil(_ condition: () -> Bool) throws {
            owner = pthread_self()
            while !condition() {
                board.next().runSynchronously(on: asUnownedSerialExecutor())
            }
        }

        /// The process ends with `exit`; the loop has nothing to hand back.
        func stop() {}

        func checkIsolated() {
            guard let owner, pthread_equal(owner, pthread_self()) != 0 else {
                preconditionFailure("expected to run on the main thread (MainThreadExecutor)")
            }
        }
    }
#endif
