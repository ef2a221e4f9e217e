import Benchmark
import DoorVerifierClient
import Foundation
import KioskPadAccess
import KioskPadCore
import Logging
import SmokeRun

/// The server's CPU time per `/verify` request (every thread of the `verifier serve`
/// process, read from /proc/PID/task/*/schedstat in nanoseconds), for two loads: a code that
/// matches nothing (no user has TOTP, no code is issued, so nothing is hashed: the request's
/// own cost, HTTP, signature, body, store and audit) and ana's PIN (3 hashes at 75,000
/// iterations). With `$KIOSKPAD_BASELINE_BINARY` (a release build of an earlier commit) the
/// same loads run against it too, in the same run, so the two can be compared.
let serverCPU = BenchmarkMetric.custom("server CPU per request (us)", polarity: .prefersSmaller, useScalingFactor: false)

/// The nanoseconds `pid`'s threads have run on a CPU so far.
func cpuNanoseconds(of pid: Int32) -> Int {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    return tasks.reduce(0) { total, task in
        let line = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8)) ?? ""
        return total + (line.split(separator: " ").first.flatMap { Int($0) } ?? 0)
    }
}

/// Each iteration: `requests` attempts one after another from one signed client, each from
/// a terminal of its own (no lockout builds up); records the server's CPU time per request.
func serverCPU(_ benchmark: Benchmark, binary: String, grantedPIN: Bool) async throws {
    let server = try ThroughputServer(binary: binary)
    defer { server.stop() }
    guard let client = try server.clients(1).first else { return }
    let requests = SmokeRun.size(grantedPIN ? 20 : 500, smoke: 2)
    var terminal = 0
    func attempt() async {
        terminal += 1
        let value = SecretDigits(ascii: grantedPIN ? "4826" : "731904")!
        let outcome = await client.verify(VerificationAttempt(terminalID: "t-\(terminal)", kind: grantedPIN ? .pin : .code, value: value))
        var denied = false
        if case .denied = outcome { denied = true }
        precondition(grantedPIN ? outcome == .granted(user: "ana") : denied, "ana's PIN granted, a code matching nothing denied: \(outcome)")
    }
    for _ in 0..<10 { await attempt() }  // the connection and the store warmed
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
        let before = cpuNanoseconds(of: server.processID)
        for _ in 0..<requests { await attempt() }
        benchmark.measurement(serverCPU, (cpuNanoseconds(of: server.processID) - before) / requests / 1_000)
    }
    benchmark.stopMeasurement()
    await client.shutdown()
}

func serverCPUBenchmarks() {
    var builds = [("this build", ThroughputServer.binary)]
    if let baseline = ProcessInfo.processInfo.environment["KIOSKPAD_BASELINE_BINARY"] { builds.insert(("baseline", baseline), at: 0) }
    let configuration = Benchmark.Configuration(metrics: [serverCPU, .wallClock], warmupIterations: 1, maxDuration: .seconds(60), maxIterations: 15)
    for (name, binary) in builds {
        Benchmark("Server CPU per /verify, a code matching nothing (\(name))", configuration: configuration) { benchmark in
            try await serverCPU(benchmark, binary: binary, grantedPIN: false)
        }
        Benchmark("Server CPU per /verify, a granted PIN (\(name))", configuration: configuration) { benchmark in
            try await serverCPU(benchmark, binary: binary, grantedPIN: true)
        }
    }
}
