import KeypadHAL
import KeypadTestSupport
import Testing

/// Deterministic randomness for scripted bounce (SplitMix64).
final class SeededNumbers {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(max(bound, 1)))
    }
}

/// Runs the scan loop over a scripted mock matrix until the script is played out.
struct MatrixHarness {
    static let layout = MatrixLayout(rows: 4, columns: 4, labels: Array("123A456B789C*0#D"))

    var matrix: MockKeyMatrix
    var settings = ScannerSettings()

    init(hasDiodes: Bool = false) {
        matrix = MockKeyMatrix(rows: 4, columns: 4, hasDiodes: hasDiodes)
        settings.hasDiodes = hasDiodes
    }

    /// Keys 1 (0,0), 2 (0,1) and 4 (1,0) go down one after another, then up in reverse:
    /// three corners of a rectangle whose fourth corner is 5 (1,1).
    mutating func pressRectangleCorners() {
        matrix.press(row: 0, column: 0, at: .milliseconds(10))
        matrix.press(row: 0, column: 1, at: .milliseconds(60))
        matrix.press(row: 1, column: 0, at: .milliseconds(110))
        matrix.release(row: 1, column: 0, at: .milliseconds(200))
        matrix.release(row: 0, column: 1, at: .milliseconds(250))
        matrix.release(row: 0, column: 0, at: .milliseconds(300))
    }

    func run(extra: Duration = .seconds(1)) throws -> (events: [ScanEvent], loop: MatrixScanLoop, backend: MockMatrixBackend) {
        let (timed, loop, backend) = try runTimed(extra: extra)
        return (timed.map(\.event), loop, backend)
    }

    /// Runs the loop and records when (virtual time) each event was delivered.
    func runTimed(
        settle: Duration = .microseconds(50), interval: Duration = .milliseconds(1), extra: Duration = .seconds(1),
        configure: (MockMatrixBackend) -> Void = { _ in }
    ) throws -> (events: [(event: ScanEvent, at: Duration)], loop: MatrixScanLoop, backend: MockMatrixBackend) {
        let timing = VirtualScanTiming()
        let backend = MockMatrixBackend(matrix: matrix, timing: timing)
        configure(backend)
        let loop = MatrixScanLoop(
            scanner: MatrixScanner(layout: MatrixHarness.layout, settings: settings), backend: backend,
            settle: settle, interval: interval, timing: timing)
        let end = (matrix.changes.last?.time ?? .zero) + extra
        var events: [(event: ScanEvent, at: Duration)] = []
        try loop.run(shouldStop: { backend.exhausted || timing.now > end }, deliver: { events.append(($0, timing.now)) })
        return (events, loop, backend)
    }
}

func labels(_ events: [ScanEvent]) -> String {
    events.map { event in
        switch event {
        case .pressed(let key): return "+\(key.label)"
        case .released(let key): return "-\(key.label)"
        case .held(let key): return "h\(key.label)"
        case .stuck(let key): return "s\(key.label)"
        case .ghosting: return "g"
        }
    }.joined(separator: " ")
}

@Suite("Matrix scanner on the mock backend")
struct MatrixScannerTests {
    @Test func bounceCorpusOf1000PressesYieldsExactly1000PressesAnd1000Releases() throws {
        let random = SeededNumbers(seed: 2026)
        var harness = MatrixHarness()
        let tapped = harness.matrix.tapRandomKeys(
            1000, of: MatrixHarness.layout, from: .milliseconds(5), down: .milliseconds(40), spacing: .milliseconds(80),
            bounce: { .microseconds(random.next(5001)) }, random: random.next)
        let expected = tapped.flatMap { ["+\($0)", "-\($0)"] }
        let (events, _, _) = try harness.run()
        #expect(events.filter { if case .pressed = $0 { true } else { false } }.count == 1000)
        #expect(events.filter { if case .released = $0 { true } else { false } }.count == 1000)
        #expect(labels(events) == expected.joined(separator: " "))
    }

    @Test func fastTypingThirtyMillisecondsApartLosesAndDoublesNothing() throws {
        let random = SeededNumbers(seed: 30)
        var harness = MatrixHarness()
        let typed = Array("1475369*0#2580")
        var time = Duration.milliseconds(1)
        for label in typed {
            let index = MatrixHarness.layout.labels.firstIndex(of: label)!
            harness.matrix.press(row: index / 4, column: index % 4, at: time, bounce: .milliseconds(2), random: random.next)
            harness.matrix.release(row: index / 4, column: index % 4, at: time + .milliseconds(18), bounce: .milliseconds(2), random: random.next)
            time += .milliseconds(30)
        }
        let (events, _, _) = try harness.run()
        let presses = events.compactMap { if case .pressed(let key) = $0 { key.label } else { nil } }
        #expect(presses == typed)
    }

    @Test func theNextDecisionIsWhenAPendingChangeMayBecomeAnEvent() {
        var settings = ScannerSettings()
        settings.debouncePress = .milliseconds(10)
        settings.debounceRelease = .milliseconds(15)
        var scanner = MatrixScanner(layout: MatrixHarness.layout, settings: settings)
        let rowsReadAt: (Duration) -> [Duration] = { t in (0..<4).map { t + .microseconds(100 * $0) } }
        #expect(scanner.nextDecision == nil)
        _ = scanner.process([0, 0b0010, 0, 0], readAt: rowsReadAt(.milliseconds(5)), pressStartedAt: .milliseconds(4))
        #expect(scanner.nextDecision?.due == .milliseconds(14))  // from the edge, plus the press time
        #expect(labels(scanner.process([0, 0b0010, 0, 0], readAt: rowsReadAt(.milliseconds(14)))) == "+5")
        #expect(scanner.nextDecision == nil)
        _ = scanner.process([0, 0, 0, 0], readAt: rowsReadAt(.milliseconds(50)))
        #expect(scanner.nextDecision?.due == .milliseconds(50) + .microseconds(100) + .milliseconds(15))  // row 1's read, plus the release time
    }

    @Test func aWakingReadDatesOnlyTheColumnsItFoundActive() {
        var settings = ScannerSettings()
        settings.debouncePress = .milliseconds(10)
        var scanner = MatrixScanner(layout: MatrixHarness.layout, settings: settings)
        let rowsReadAt: (Duration) -> [Duration] = { t in (0..<4).map { t + .microseconds(100 * $0) } }
        // The idle read at 4 ms found column 1 active; keys 5 (1,1) and 8 (1,3) are first seen at 5.1 ms.
        _ = scanner.process([0, 0b1010, 0, 0], readAt: rowsReadAt(.milliseconds(5)), pressStartedAt: .milliseconds(4), pressColumns: 0b0010)
        // 5 is dated from the read, 8 (column 3, not seen then) from its own row's read.
        #expect(scanner.nextDecision?.due == .milliseconds(14))
        #expect(labels(scanner.process([0, 0b1010, 0, 0], readAt: rowsReadAt(.milliseconds(14)))) == "+5")
        #expect(scanner.nextDecision?.due == .milliseconds(15) + .microseconds(100))
    }

    @Test func aGhostRectangleProducesNoPhantomKey() throws {
        var harness = MatrixHarness()
        // Keys 1 (0,0), 2 (0,1) and 4 (1,0): without diodes, 5 (1,1) reads as pressed too.
        harness.pressRectangleCorners()
        let (events, _, _) = try harness.run()
        #expect(labels(events) == "+1 +2 g -2 -1")
        #expect(!events.contains { if case .pressed(let key) = $0 { key.label == "5" || key.label == "4" } else { false } })
        if case .ghosting(let seen) = events[2] {
            #expect(Set(seen.map(\.label)) == ["1", "2", "4", "5"])
        }
    }

    @Test func withDiodesThreeKeysOfARectangleAreAllReported() throws {
        var harness = MatrixHarness(hasDiodes: true)
        harness.pressRectangleCorners()
        let (events, _, _) = try harness.run()
        #expect(labels(events) == "+1 +2 +4 -4 -2 -1")
    }

    @Test func twoKeyRolloverInDifferentRowsAndColumns() throws {
        var harness = MatrixHarness()
        harness.matrix.press(row: 0, column: 0, at: .milliseconds(10))
        harness.matrix.press(row: 2, column: 2, at: .milliseconds(40))
        harness.matrix.release(row: 0, column: 0, at: .milliseconds(70))
        harness.matrix.release(row: 2, column: 2, at: .milliseconds(100))
        let (events, _, _) = try harness.run()
        #expect(labels(events) == "+1 +9 -1 -9")
    }

    @Test func twoKeysInOneColumnAndInOneRowAreBothSeen() throws {
        var harness = MatrixHarness()
        harness.matrix.press(row: 0, column: 0, at: .milliseconds(10))
        harness.matrix.press(row: 1, column: 0, at: .milliseconds(40))
        harness.matrix.release(row: 0, column: 0, at: .milliseconds(80))
        harness.matrix.release(row: 1, column: 0, at: .milliseconds(100))
        harness.matrix.press(row: 3, column: 1, at: .milliseconds(200))
        harness.matrix.press(row: 3, column: 3, at: .milliseconds(230))
        harness.matrix.release(row: 3, column: 1, at: .milliseconds(260))
        harness.matrix.release(row: 3, column: 3, at: .milliseconds(290))
        let (events, _, _) = try harness.run()
        #expect(labels(events) == "+1 +4 -1 -4 +0 +D -0 -D")
    }

    @Test func holdIsReportedOnceAndStuckKeysAreIgnoredUntilReleased() throws {
        var harness = MatrixHarness()
        harness.settings.hold = .milliseconds(500)
        harness.settings.stuck = .seconds(2)
        harness.matrix.press(row: 1, column: 1, at: .milliseconds(10))
        // Another key (another column) still works while 5 is stuck.
        harness.matrix.press(row: 2, column: 2, at: .seconds(3))
        harness.matrix.release(row: 2, column: 2, at: .milliseconds(3_050))
        harness.matrix.release(row: 1, column: 1, at: .seconds(4))
        let (events, loop, _) = try harness.run()
        #expect(labels(events) == "+5 h5 s5 +9 -9 -5")
        // Scanning every 1 ms (start to start) for the 2 s until "stuck" costs ~2,000 scans; the
        // 2 s after it would cost as many again if the loop kept scanning. It re-checks every
        // 200 ms instead.
        #expect(loop.scans > 1_800)
        #expect(loop.scans < 2_300)
    }

    @Test func aBounceShorterThanTheDebounceTimeNeverCommits() throws {
        var harness = MatrixHarness()
        harness.matrix.press(row: 0, column: 0, at: .milliseconds(10))
        harness.matrix.release(row: 0, column: 0, at: .milliseconds(15))
        let (events, _, _) = try harness.run()
        #expect(events.isEmpty)
    }

    @Test func idleWaitsOnEdgesAndAScanCostsTwoValueCallsPerRow() throws {
        var harness = MatrixHarness()
        harness.matrix.press(row: 0, column: 0, at: .seconds(10))
        harness.matrix.release(row: 0, column: 0, at: .milliseconds(10_050))
        let timing = VirtualScanTiming()
        let backend = MockMatrixBackend(matrix: harness.matrix, timing: timing)
        let loop = MatrixScanLoop(
            scanner: MatrixScanner(layout: MatrixHarness.layout, settings: harness.settings), backend: backend,
            settle: .zero, interval: .milliseconds(1), timing: timing)
        let before = backend.valueCalls
        _ = try loop.scan()
        #expect(backend.valueCalls - before == 2 * 4)
        var events: [ScanEvent] = []
        try loop.run(shouldStop: { backend.exhausted }, deliver: { events.append($0) })
        #expect(labels(events) == "+1 -1")
        // Ten idle seconds cost one wait, not thousands of scans.
        #expect(loop.scans < 100)
        #expect(loop.idleWaits <= 3)
    }

    @Test(arguments: [
        ([0b0011, 0b0011, 0, 0] as [UInt8], true),
        ([0b0011, 0b0001, 0, 0] as [UInt8], false),
        ([0b0001, 0b0001, 0b0001, 0] as [UInt8], false),
        ([0b1010, 0, 0b1110, 0] as [UInt8], true),
    ])
    func ghostDetection(sample: [UInt8], ghost: Bool) {
        #expect(MatrixScanner.hasGhost(sample) == ghost)
    }
}
