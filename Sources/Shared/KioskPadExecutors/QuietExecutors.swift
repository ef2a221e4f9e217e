// The custom executors use the experimental executor SPI of Swift 6.3 (`_Concurrency`'s
// ExperimentalCustomExecutors). Without the QuietExecutors trait, or on an older
// compiler, the process runs on the standard executors instead (Main.swift).
#if QuietExecutors && compiler(>=6.3)
    @_spi(ExperimentalCustomExecutors) import _Concurrency
    import Foundation

    /// Installs the process's executors: a ``WorkerPoolExecutor`` for tasks and a
    /// ``MainThreadExecutor`` for the main actor, so that an idle process wakes no thread.
    /// Call ``install()`` first thing in a synchronous `main`, before any task exists.
    public enum QuietExecutors {
        static let pool = WorkerPoolExecutor(threads: max(2, ProcessInfo.processInfo.activeProcessorCount))
        static let main = MainThreadExecutor()

        enum Factory: ExecutorFactory {
            static var mainExecutor: any MainExecutor { QuietExecutors.main }
            static var defaultExecutor: any TaskExecutor { QuietExecutors.pool }
        }

        public static func install() {
            _createExecutors(factory: Factory.self)
        }

        /// Runs `operation` as a task, and main-actor jobs on this thread; never returns (the
        /// operation ends the process).
        public static func runMain(_ operation: @escaping @Sendable () async -> Never) -> Never {
            Task { await operation() }
            do { try main.run() } catch { preconditionFailure("main executor stopped: \(error)") }
            preconditionFailure("main executor returned")
        }
    }
#endif
