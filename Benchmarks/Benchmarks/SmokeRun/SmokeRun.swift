@preconcurrency import Benchmark
import Foundation

/// CI's check that the benchmarks still build and run (`KIOSKPAD_BENCHMARK_SMOKE=1`): every
/// registered benchmark runs once, without warm-up, and its figures mean nothing. Without
/// the variable this does nothing.
public enum SmokeRun {
    /// Whether this is CI's smoke run.
    public static var isOn: Bool { ProcessInfo.processInfo.environment["KIOSKPAD_BENCHMARK_SMOKE"] == "1" }

    /// A fixture's size: `full`, or at most `smoke` in the smoke run (the code path is the
    /// same; only its length changes).
    public static func size(_ full: Int, smoke: Int) -> Int { isOn ? min(full, smoke) : full }

    /// Called last in each benchmark target's `benchmarks` closure.
    public static func clampIfAsked() {
        guard isOn else { return }
        for benchmark in Benchmark.benchmarks {
            benchmark.configuration.warmupIterations = 0
            benchmark.configuration.maxIterations = 1
            benchmark.configuration.maxDuration = .seconds(1)
        }
    }
}
