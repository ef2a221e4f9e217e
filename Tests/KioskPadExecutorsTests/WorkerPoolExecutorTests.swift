import KioskPadThreads

// The pool exists where the executors it serves do: the QuietExecutors trait on Swift 6.3 or
// newer (not Debian's 6.2 of the arm64 builds).
#if QuietExecutors && compiler(>=6.3)
    import Foundation
    import Testing
    @testable import KioskPadExecutors

    @Suite struct WorkerPoolExecutorTests {
        static let pool = WorkerPoolExecutor(threads: 2)

        @Test func tasksRunOnThePoolsNamedThreads() async {
            let name = await Task(executorPreference: Self.pool) { currentThreadName() }.value
            #expect(name.hasPrefix("kp-pool-"))
        }

        @Test func aThousandChildTasksAllComplete() async {
            // A pool of its own: the other test's jobs must not be on the board counted below.
            let pool = WorkerPoolExecutor(threads: 2)
            let total = await withTaskExecutorPreference(pool) {
                await withTaskGroup(of: Int.self) { group in
                    for value in 1...1000 { group.addTask { value } }
                    return await group.reduce(0, +)
                }
            }
            #expect(total == 500_500)
            #expect(pool.board.counts == (0, 0))
        }
    }

    /// The calling thread's name as the kernel shows it (`/proc/thread-self/comm`).
    private func currentThreadName() -> String {
        (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?
            .trimmingCharacters(in: .newlines) ?? ""
    }
#endif
