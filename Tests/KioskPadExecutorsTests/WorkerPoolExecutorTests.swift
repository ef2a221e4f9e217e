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
        let total = await withTaskExecutorPreference(Self.pool) {
            await withTaskGroup(of: Int.self) { group in
                for value in 1...1000 { group.addTask { value } }
                return await group.reduce(0, +)
            }
        }
        #expect(total == 500_500)
        #expect(Self.pool.board.counts == (0, 0))
    }
}

/// Thread.current is unavailable in async code; a synchronous call may read it.
private func currentThreadName() -> String { Thread.current.name ?? "" }
