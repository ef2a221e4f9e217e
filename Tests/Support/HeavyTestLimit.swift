import Foundation
import Testing

/// A limit on how many heavy tests run at once: tests that start real servers (PostgreSQL,
/// mosquitto, the site server), child processes of the debug binaries, or hold a time limit.
///
/// Swift Testing starts every test of a run together. Unlimited, one `swift test` on a 2-core
/// machine had some forty PostgreSQL servers, brokers and debug binaries starting at once;
/// `perf` over the first 70 s gave the test process's own threads 16% of the CPU samples,
/// the PostgreSQL servers 25% and the child binaries about as much, and the queries and HTTP
/// answers the tests waited for missed their 10 s and 4 s limits. Mark a suite or test
/// `.heavy`; each of its test cases waits for one of ``HeavyTestSlots/count`` slots (a test
/// already holding one, nested, does not wait again).
public struct HeavyTestTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> HeavyTestTrait? {
        testCase == nil ? nil : self
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        if HeavyTestSlots.held {
            try await function()
            return
        }
        await HeavyTestSlots.shared.acquire()
        do {
            try await HeavyTestSlots.$held.withValue(true) { try await function() }
        } catch {
            await HeavyTestSlots.shared.release()
            throw error
        }
        await HeavyTestSlots.shared.release()
    }
}

extension Trait where Self == HeavyTestTrait {
    /// Runs each test case within the run-wide limit of heavy tests (``HeavyTestSlots``).
    public static var heavy: Self { HeavyTestTrait() }
}

/// The slots heavy tests share, first come first served.
public actor HeavyTestSlots {
    /// `KIOSKPAD_TEST_HEAVY_SLOTS` if set (1 or more), else twice the cores (4 on a 2-core machine).
    public static let count: Int = {
        if let text = ProcessInfo.processInfo.environment["KIOSKPAD_TEST_HEAVY_SLOTS"], let value = Int(text), value > 0 { return value }
        return max(2, 2 * ProcessInfo.processInfo.activeProcessorCount)
    }()

    static let shared = HeavyTestSlots()
    @TaskLocal static var held = false

    private var free = HeavyTestSlots.count
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty {
            free += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
