import KeypadHAL
import KeypadTestSupport
import Testing

/// A press that falls due is delivered as soon as its own row is read, when that row alone
/// proves it real: the scan starts with that row, and the rows after it do not delay it.
@Suite("Early presses: a due press is delivered when its row is read")
struct EarlyPressTests {
    /// A scanner with a press of 5 (row 1, column 1) being debounced since 4 ms (due at 14 ms).
    private func scannerWithPendingFive() -> MatrixScanner {
        var settings = ScannerSettings()
        settings.debouncePress = .milliseconds(10)
        var scanner = MatrixScanner(layout: MatrixHarness.layout, settings: settings)
        let readAt = (0..<4).map { Duration.milliseconds(5) + .microseconds(100 * $0) }
        _ = scanner.process([0, 0b0010, 0, 0], readAt: readAt, pressStartedAt: .milliseconds(4))
        return scanner
    }

    @Test func aRowWithOneActiveColumnSettlesItsDuePressOnce() {
        var scanner = scannerWithPendingFive()
        #expect(scanner.nextDecision?.row == 1)
        #expect(scanner.earlyPresses(row: 1, columns: 0b0010, readAt: .microseconds(13_900)).isEmpty)  // not due yet
        #expect(labels(scanner.earlyPresses(row: 1, columns: 0b0010, readAt: .milliseconds(14))) == "+5")
        #expect(scanner.earlyPresses(row: 1, columns: 0b0010, readAt: .milliseconds(15)).isEmpty)
        // The full scan that follows finds 5 already down: no second press.
        let readAt = (0..<4).map { Duration.milliseconds(14) + .microseconds(100 * $0) }
        #expect(scanner.process([0, 0b0010, 0, 0], readAt: readAt).isEmpty)
        #expect(scanner.pressedKeys.map(\.label) == ["5"])
    }

    @Test func aRowWithTwoActiveColumnsWaitsForTheWholeScan() {
        // Without diodes, 5 beside another active column in its row may be a ghost's corner.
        var scanner = scannerWithPendingFive()
        #expect(scanner.earlyPresses(row: 1, columns: 0b0011, readAt: .milliseconds(14)).isEmpty)
        #expect(scanner.earlyPresses(row: 0, columns: 0b0010, readAt: .milliseconds(14)).isEmpty)  // nothing pending there
    }

    @Test func nothingIsDecidedEarlyWhileTheLastScanGhosted() {
        var scanner = scannerWithPendingFive()
        let readAt = (0..<4).map { Duration.milliseconds(8) + .microseconds(100 * $0) }
        #expect(labels(scanner.process([0b0011, 0b0011, 0, 0], readAt: readAt)) == "g")
        #expect(scanner.earlyPresses(row: 1, columns: 0b0010, readAt: .milliseconds(14)).isEmpty)
    }

    @Test func withDiodesARowWithTwoActiveColumnsSettlesItsDuePress() {
        var settings = ScannerSettings()
        settings.hasDiodes = true
        var scanner = MatrixScanner(layout: MatrixHarness.layout, settings: settings)
        let readAt = (0..<4).map { Duration.milliseconds(5) + .microseconds(100 * $0) }
        _ = scanner.process([0, 0b0011, 0, 0], readAt: readAt, pressStartedAt: .milliseconds(4))
        let due = Duration.milliseconds(4) + settings.debouncePress
        #expect(labels(scanner.earlyPresses(row: 1, columns: 0b0011, readAt: due)) == "+4 +5")
    }

    @Test func aKeyInTheLastRowIsDeliveredOneRowAfterItsDueTimeNotOneScan() throws {
        // Rows settle 1 ms and reads cost 100 µs: a scan takes ~4.8 ms. Key D is in the last
        // row; its debounce ends at 110 ms (edge at 100 ms). The due-time scan reads row 3
        // first and delivers at once; read in row order it came one whole scan later.
        var harness = MatrixHarness()
        harness.matrix.press(row: 3, column: 3, at: .milliseconds(100))
        harness.matrix.release(row: 3, column: 3, at: .milliseconds(200))
        let (events, loop, _) = try harness.runTimed(settle: .milliseconds(1), interval: .milliseconds(2)) {
            $0.callCost = .microseconds(100)
        }
        let press = try #require(events.first { if case .pressed = $0.event { true } else { false } })
        #expect(labels([press.event]) == "+D")
        #expect(press.at >= .milliseconds(110))
        #expect(press.at <= .milliseconds(111) + .microseconds(300))
        #expect(labels(events.map(\.event)) == "+D -D")
        #expect(loop.scanner.pressedKeys.isEmpty)
    }

    @Test func aGhostRectangleStillMakesNoPhantomWithSlowRows() throws {
        // The fourth corner 5 appears in a row with two active columns: never decided early.
        var harness = MatrixHarness()
        harness.pressRectangleCorners()
        let (events, _, _) = try harness.runTimed(settle: .milliseconds(1), interval: .milliseconds(2)) {
            $0.callCost = .microseconds(100)
        }
        #expect(labels(events.map(\.event)) == "+1 +2 g -2 -1")
    }
}
