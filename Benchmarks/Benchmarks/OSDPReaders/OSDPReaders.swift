// OSDP readers at the door, against libosdp's reader (PyPI libosdp, Tests/OSDP/osdp-reader.py)
// over a socat pseudo-terminal pair at 115,200 baud with the Secure Channel: a key typed at the
// reader to the key in the entry model; the poll cycle with 1, 2 and 4 readers on the line; and
// how often the bus thread wakes with one reader polled. Needs socat and libosdp (scripts/setup.sh
// and scripts/test.sh install them). Run: cd Benchmarks && swift package benchmark --target OSDPReaders
import Benchmark
import DoorOSDP
import Foundation
import KeypadHAL
import KeypadTestSupport
import KioskPadCore
import SmokeRun
import Synchronization
import TestPeers

#if canImport(Glibc)
    import Glibc
#endif

let key = "a1b2c3d4e5f60718293a4b5c6d7e8f90"
let keyLatency = BenchmarkMetric.custom("key to entry (us)", polarity: .prefersSmaller, useScalingFactor: false)
let cycleLength = BenchmarkMetric.custom("poll cycle (us)", polarity: .prefersSmaller, useScalingFactor: false)
let wakeups = BenchmarkMetric.custom("bus thread wake-ups per second", polarity: .prefersSmaller, useScalingFactor: false)

/// CLOCK_MONOTONIC in nanoseconds: the clock Python's time.monotonic_ns() reads.
func monotonicNanoseconds() -> Int {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return now.tv_sec * 1_000_000_000 + now.tv_nsec
}

/// What the door side saw, from its threads.
final class Seen: Sendable {
    private let state = Mutex<(delivered: [Int], cycles: [Duration], online: Set<UInt8>)>(([], [], []))

    func deliver() { state.withLock { $0.delivered.append(monotonicNanoseconds()) } }
    func cycle(_ length: Duration) { state.withLock { $0.cycles.append(length) } }
    func online(_ address: UInt8) { state.withLock { _ = $0.online.insert(address) } }

    var delivered: [Int] { state.withLock { $0.delivered } }
    var onlineCount: Int { state.withLock { $0.online.count } }
    func takeCycles() -> [Duration] {
        state.withLock { state in
            defer { state.cycles.removeAll() }
            return state.cycles
        }
    }
}

/// A door side on `peer`'s line with readers at `addresses`, waited until every one is online.
func door(_ peer: OSDPPeer, addresses: [UInt8], pollInterval: Duration) throws -> (KeySourceRun, Seen) {
    let seen = Seen()
    let source = try OSDPKeySource(
        device: peer.panelDevice, baud: 115_200, readers: addresses.map { OSDPReaderSetup(address: $0, key: OSDPKey(hex: key)) },
        pollInterval: pollInterval, commands: OSDPCommandQueue(),
        report: { address, event in if case .online(secure: true) = event { seen.online(address) } },
        cycleObserver: { seen.cycle($0) })
    let run = source.start(deliver: { _ in seen.deliver() }, finished: { _ in })
    for _ in 0..<1000 where seen.onlineCount < addresses.count { usleep(10_000) }
    precondition(seen.onlineCount == addresses.count, "readers did not come online")
    return (run, seen)
}

/// Voluntary plus involuntary context switches of the thread named `name` in this process.
func contextSwitches(thread name: String) -> Int? {
    guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return nil }
    for task in tasks {
        guard let comm = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8),
            comm.trimmingCharacters(in: .whitespacesAndNewlines) == name,
            let status = try? String(contentsOfFile: "/proc/self/task/\(task)/status", encoding: .utf8)
        else { continue }
        return status.split(separator: "\n").filter { $0.contains("ctxt_switches") }.compactMap { Int($0.split(separator: "\t").last ?? "") }.reduce(0, +)
    }
    return nil
}

func microseconds(_ duration: Duration) -> Int {
    Int(duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000)
}

/// A reader and a door kept for every sample of one key benchmark (a session is set up once).
final class KeyFixture: @unchecked Sendable {
    // @unchecked: made once per poll interval under `fixtures`' lock, then used by one benchmark.
    let peer: OSDPPeer
    let run: KeySourceRun
    let seen: Seen

    init(pollInterval: Duration) throws {
        peer = try OSDPPeer(arguments: ["--key", key])
        precondition(peer.waitUntilReadyBlocking(), "the reader did not start")
        (run, seen) = try door(peer, addresses: [1], pollInterval: pollInterval)
    }
}

let fixtures = Mutex<[Duration: KeyFixture]>([:])

/// Each sample: one key typed at the reader (its stamp taken just before libosdp queues it),
/// until it reaches the entry model; then a random pause within a poll interval, so keys land
/// at random points of the poll cycle, as a person's do.
func keys(_ benchmark: Benchmark, pollInterval: Duration) throws {
    let fixture = try fixtures.withLock { cache in
        if let made = cache[pollInterval] { return made }
        let made = try KeyFixture(pollInterval: pollInterval)
        cache[pollInterval] = made
        return made
    }
    let (peer, seen) = (fixture.peer, fixture.seen)
    usleep(useconds_t(Int.random(in: 0...microseconds(pollInterval))))
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
        let before = seen.delivered.count
        let stamps = peer.lines(containing: "stamp_ns").count
        peer.send("stamp 5")
        while seen.delivered.count == before || peer.lines(containing: "stamp_ns").count == stamps { usleep(100) }
        let stamp = Int(peer.lines(containing: "stamp_ns")[stamps].filter(\.isNumber))!
        benchmark.measurement(keyLatency, (seen.delivered[before] - stamp) / 1000)
    }
    benchmark.stopMeasurement()
}

/// The bus polling as fast as it can (no wait between cycles): each cycle's length.
func cycles(_ benchmark: Benchmark, readers: Int) throws {
    let addresses = (1...readers).map { UInt8($0) }
    let peer = try OSDPPeer(arguments: ["--key", key, "--more-readers", addresses.dropFirst().map(String.init).joined(separator: ",")])
    precondition(peer.waitUntilReadyBlocking(), "the reader did not start")
    let (run, seen) = try door(peer, addresses: addresses, pollInterval: .zero)
    defer { run.stop() }
    _ = seen.takeCycles()
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
        usleep(500_000)
        for length in seen.takeCycles() { benchmark.measurement(cycleLength, microseconds(length)) }
    }
    benchmark.stopMeasurement()
}

/// One reader polled at `pollInterval`, nothing typed: how often the bus thread wakes.
func idle(_ benchmark: Benchmark, pollInterval: Duration) throws {
    let peer = try OSDPPeer(arguments: ["--key", key])
    precondition(peer.waitUntilReadyBlocking(), "the reader did not start")
    let (run, _) = try door(peer, addresses: [1], pollInterval: pollInterval)
    defer { run.stop() }
    sleep(1)
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
        let start = contextSwitches(thread: OSDPKeySource.threadName)!
        sleep(5)
        benchmark.measurement(wakeups, (contextSwitches(thread: OSDPKeySource.threadName)! - start) / 5)
    }
    benchmark.stopMeasurement()
}

let benchmarks: @Sendable () -> Void = {
    Benchmark(
        "OSDP key at the reader to the entry model (115,200 baud, Secure Channel, poll every 50 ms)",
        configuration: .init(metrics: [keyLatency], warmupIterations: 0, maxDuration: .seconds(60), maxIterations: 300)
    ) { benchmark in try keys(benchmark, pollInterval: .milliseconds(50)) }
    Benchmark(
        "OSDP key at the reader to the entry model (115,200 baud, Secure Channel, poll every 20 ms)",
        configuration: .init(metrics: [keyLatency], warmupIterations: 0, maxDuration: .seconds(60), maxIterations: 300)
    ) { benchmark in try keys(benchmark, pollInterval: .milliseconds(20)) }
    for readers in [1, 2, 4] {
        Benchmark(
            "OSDP poll cycle, \(readers) reader\(readers == 1 ? "" : "s") on the line (115,200 baud, Secure Channel, no wait)",
            configuration: .init(metrics: [cycleLength], warmupIterations: 0, maxDuration: .seconds(30), maxIterations: 10)
        ) { benchmark in try cycles(benchmark, readers: readers) }
    }
    Benchmark(
        "OSDP bus thread wake-ups, 1 reader polled every 50 ms, idle",
        configuration: .init(metrics: [wakeups], warmupIterations: 0, maxDuration: .seconds(60), maxIterations: 3)
    ) { benchmark in try idle(benchmark, pollInterval: .milliseconds(50)) }
    SmokeRun.clampIfAsked()
}
