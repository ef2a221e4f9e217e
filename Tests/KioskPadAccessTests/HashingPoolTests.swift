import Foundation
import KioskPadAccess
import KioskPadCore
import KioskPadThreads
import Synchronization
import Testing

/// The hashing pool: its own threads, door work ahead of console work, bounded queues.
@Suite("Hashing pool")
struct HashingPoolTests {
    /// A gate the pool's one thread waits at, so the tests can fill the queues behind it.
    final class Gate: Sendable {
        private let condition = NSCondition()
        private let opened = Mutex(false)
        let entered = Mutex(false)

        func wait() {
            entered.withLock { $0 = true }
            condition.lock()
            while !opened.withLock({ $0 }) { condition.wait() }
            condition.unlock()
        }

        func open() {
            condition.lock()
            opened.withLock { $0 = true }
            condition.broadcast()
            condition.unlock()
        }
    }

    /// The order the pool ran jobs in.
    final class Order: Sendable {
        private let list = Mutex<[String]>([])
        func append(_ name: String) { list.withLock { $0.append(name) } }
        var names: [String] { list.withLock { $0 } }
    }

    /// Waits until the pool's thread is held at `gate`.
    static func untilHeld(_ gate: Gate) async throws {
        for _ in 0..<500 where !gate.entered.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }
        #expect(gate.entered.withLock { $0 })
    }

    /// Waits until the pool holds this many queued jobs in each lane.
    static func untilQueued(_ pool: HashingPool, door: Int, console: Int) async throws {
        for _ in 0..<500 where pool.waiting != (door, console) { try await Task.sleep(for: .milliseconds(10)) }
        #expect(pool.waiting == (door, console))
    }

    @Test func hashesRunOnThePoolsOwnThreadsNotTheCallers() async throws {
        let pool = HashingPool(threads: 2, doorQueue: 4, consoleQueue: 4)
        let name = try await pool.run(.door) { currentThreadName() }
        #expect(name.hasPrefix("kp-hash-"))
        let hash = try await pool.makeHash(SecretDigits(ascii: "2468")!, iterations: 1_000, lane: .console)
        #expect(hash.matches(SecretDigits(ascii: "2468")!) && hash.iterations == 1_000)
    }

    @Test func doorWorkQueuedAfterConsoleWorkRunsFirst() async throws {
        let pool = HashingPool(threads: 1, doorQueue: 8, consoleQueue: 8)
        let gate = Gate()
        let order = Order()
        let blocker = Task { try await pool.run(.console) { gate.wait() } }
        try await Self.untilHeld(gate)
        let console = Task { try await pool.run(.console) { order.append("console") } }
        try await Self.untilQueued(pool, door: 0, console: 1)
        let door = Task { try await pool.run(.door) { order.append("door") } }
        try await Self.untilQueued(pool, door: 1, console: 1)
        gate.open()
        try await blocker.value
        try await console.value
        try await door.value
        #expect(order.names == ["door", "console"])
    }

    /// Two threads: a console hash takes one, a second console hash waits for it, and a
    /// door's hash runs on the other at once.
    @Test func consoleWorkLeavesAThreadForTheDoors() async throws {
        let pool = HashingPool(threads: 2, doorQueue: 4, consoleQueue: 4)
        let gate = Gate()
        let order = Order()
        let blocker = Task { try await pool.run(.console) { gate.wait() } }
        try await Self.untilHeld(gate)
        let second = Task { try await pool.run(.console) { order.append("console") } }
        try await Self.untilQueued(pool, door: 0, console: 1)
        try await pool.run(.door) { order.append("door") }
        #expect(order.names == ["door"], "the door ran while one console hash held a thread and another waited")
        #expect(pool.waiting == (0, 1))
        gate.open()
        try await blocker.value
        try await second.value
        #expect(order.names == ["door", "console"])
    }

    @Test func aFullConsoleQueueRefusesAtOnceAndTheDoorLaneStillTakesWork() async throws {
        let pool = HashingPool(threads: 1, doorQueue: 2, consoleQueue: 1)
        let gate = Gate()
        let blocker = Task { try await pool.run(.door) { gate.wait() } }
        try await Self.untilHeld(gate)
        let queued = Task { try await pool.run(.console) { 1 } }
        try await Self.untilQueued(pool, door: 0, console: 1)
        await #expect(throws: HashingPool.Busy.self) { try await pool.run(.console) { 2 } }
        let door = Task { try await pool.run(.door) { 3 } }
        try await Self.untilQueued(pool, door: 1, console: 1)
        gate.open()
        _ = try await blocker.value
        #expect(try await queued.value == 1)
        #expect(try await door.value == 3)
    }
}
