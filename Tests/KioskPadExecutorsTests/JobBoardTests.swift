import Foundation
import Testing

@testable import KioskPadExecutors

@Suite struct JobBoardTests {
    @Test func readyJobsComeOutInArrivalOrder() {
        let board = JobBoard<Int>()
        for job in 1...5 { board.push(job) }
        #expect((1...5).map { _ in board.next() } == [1, 2, 3, 4, 5])
        #expect(board.counts == (0, 0))
    }

    @Test func timedJobsWaitForTheirDeadlineAndLeaveInDeadlineOrder() {
        let board = JobBoard<Int>()
        let start = JobBoard<Int>.now
        board.push(3, at: start + .milliseconds(60))
        board.push(1, at: start + .milliseconds(20))
        board.push(2, at: start + .milliseconds(20))  // same deadline: after 1, its elder
        #expect(board.counts == (0, 3))
        let timers = Thread { board.runTimers() }
        timers.start()
        var seen: [(job: Int, at: Duration)] = []
        for _ in 0..<3 {
            let job = board.next()
            seen.append((job, JobBoard<Int>.now))
        }
        #expect(seen.map(\.job) == [1, 2, 3])
        // Never before the deadline (how late depends on the scheduler and is not asserted).
        #expect(seen[0].at >= start + .milliseconds(20))
        #expect(seen[2].at >= start + .milliseconds(60))
    }

    @Test func anEarlierDeadlineWakesATimerAlreadyWaitingForALaterOne() {
        let board = JobBoard<Int>()
        let start = JobBoard<Int>.now
        board.push(9, at: start + .seconds(60))  // a minute away: the timer thread sleeps on it
        let timers = Thread { board.runTimers() }
        timers.start()
        Thread.sleep(forTimeInterval: 0.05)
        board.push(1, at: JobBoard<Int>.now + .milliseconds(10))
        #expect(board.next() == 1)
        #expect(JobBoard<Int>.now - start < .seconds(30))
        #expect(board.counts == (0, 1))
    }
}
