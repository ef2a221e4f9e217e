// The keypad pipeline's cost: scanner core plus entry model per key, the frame composer per
// frame, and the LCD driver's frame diff per key. Run: cd Benchmarks && swift package benchmark --target KeypadPipeline
import Benchmark
import KeypadDisplay
import KeypadHAL
import KeypadTestSupport
import KioskPadCore
import SmokeRun

/// 100,000 taps of random keys, 40 ms down and 80 ms apart, each end with 0-5 ms of contact
/// bounce, scripted on the 4x4 mock matrix in time order; and the labels they should give.
func bouncedTaps(count: Int, seed: UInt64) -> (matrix: MockKeyMatrix, labels: [Character]) {
    var random = seed
    func next(_ bound: Int) -> Int {
        random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((random >> 33) % UInt64(bound))
    }
    var matrix = MockKeyMatrix(rows: 4, columns: 4)
    let labels = matrix.tapRandomKeys(
        count, of: PipelineFixture.layout, from: .milliseconds(5), down: .milliseconds(40), spacing: .milliseconds(80),
        bounce: { .microseconds(next(5_001)) }, random: next)
    return (matrix, labels)
}

enum PipelineFixture {
    static let layout = MatrixLayout(rows: 4, columns: 4, labels: Array("123A456B789C*0#D"))

    /// One frame per key of a PIN typed, erased and typed again (what an LCD shows while typing).
    static func typingFrames(geometry: DisplayGeometry) -> [Frame] {
        let clock = ManualEntryClock()
        let model = EntryModel(options: EntryOptions(), clock: clock)
        let composer = FrameComposer(geometry: geometry)
        var frames = [composer.compose(model.snapshot())]
        for label in Array("12**1234") {
            clock.advance(by: .milliseconds(300))
            model.handle(.label(label))
            frames.append(composer.compose(model.snapshot()))
        }
        return frames
    }
}

final class DiscardingBus: I2CBus, @unchecked Sendable {
    var bytes = 0
    func write(_ bytes: [UInt8]) throws { self.bytes += bytes.count }
}

struct NoSleep: LCDSleeper {
    func sleep(for duration: Duration) {}
}

let benchmarks: @Sendable () -> Void = {
    let keys = SmokeRun.size(100_000, smoke: 1_000)
    let lost = BenchmarkMetric.custom("lost keys", polarity: .prefersSmaller, useScalingFactor: false)
    let doubled = BenchmarkMetric.custom("doubled keys", polarity: .prefersSmaller, useScalingFactor: false)

    Benchmark(
        "Scanner + entry model: 100,000 keys with 0-5 ms bounce (mock backend)",
        configuration: .init(metrics: [.cpuTotal, .wallClock, .mallocCountTotal, lost, doubled], maxDuration: .seconds(60), maxIterations: 3)
    ) { benchmark in
        let (matrix, expected) = bouncedTaps(count: keys, seed: 2026)
        let timing = VirtualScanTiming()
        let backend = MockMatrixBackend(matrix: matrix, timing: timing)
        let loop = MatrixScanLoop(
            scanner: MatrixScanner(layout: PipelineFixture.layout, settings: ScannerSettings(hold: .zero)),
            backend: backend, settle: .microseconds(50), interval: .milliseconds(2), timing: timing)
        let clock = ManualEntryClock()
        let model = EntryModel(options: EntryOptions(), clock: clock)
        var pressed: [Character] = []
        pressed.reserveCapacity(keys)
        var attempt: UInt64 = 0
        benchmark.startMeasurement()
        try loop.run(shouldStop: { backend.exhausted }) { event in
            guard case .pressed(let key) = event else { return }
            pressed.append(key.label)
            clock.advance(by: timing.now - clock.now)
            if model.handle(.label(key.label)) != nil {
                attempt += 1
                _ = model.complete(attempt: attempt, outcome: .granted())
            }
        }
        benchmark.stopMeasurement()
        let matched = zip(pressed, expected).prefix { $0 == $1 }.count
        benchmark.measurement(lost, max(0, expected.count - pressed.count) + (pressed.count == expected.count ? expected.count - matched : 0))
        benchmark.measurement(doubled, max(0, pressed.count - expected.count))
        precondition(
            pressed == expected, "the scanner lost or doubled keys: \(pressed.count) presses for \(expected.count) taps, first difference at \(matched)")
    }

    let frames = PipelineFixture.typingFrames(geometry: .lcd1602)
    let snapshots: [EntrySnapshot] = {
        let clock = ManualEntryClock()
        let model = EntryModel(options: EntryOptions(), clock: clock)
        return Array("12**1234").map { label in
            clock.advance(by: .milliseconds(300))
            model.handle(.label(label))
            return model.snapshot()
        }
    }()

    Benchmark(
        "Frame composer: one frame (16x2)",
        configuration: .init(metrics: [.cpuTotal, .mallocCountTotal, .throughput], scalingFactor: .kilo)
    ) { benchmark in
        let composer = FrameComposer(geometry: .lcd1602)
        for index in benchmark.scaledIterations {
            blackHole(composer.compose(snapshots[index % snapshots.count]))
        }
    }

    Benchmark(
        "LCD frame diff and bytes: one key's frame (HD44780 16x2, bus discarded)",
        configuration: .init(metrics: [.cpuTotal, .mallocCountTotal, .throughput], scalingFactor: .kilo)
    ) { benchmark in
        let bus = DiscardingBus()
        let display = HD44780Display(geometry: .lcd1602, bus: bus, sleeper: NoSleep(), startWorker: false)
        try display.render(frames[0])
        for index in benchmark.scaledIterations {
            try display.render(frames[1 + index % (frames.count - 1)])
        }
        blackHole(bus.bytes)
    }
    SmokeRun.clampIfAsked()
}
