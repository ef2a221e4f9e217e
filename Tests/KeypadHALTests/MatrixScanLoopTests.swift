import KeypadHAL
import KeypadTestSupport
import Testing

@Suite("Scan loop: slow lines, edge timestamps, fast taps")
struct MatrixScanLoopTests {
    static let star = (row: 3, column: 0)

    @Test func theMockSlowColumnReallyLingersIntoTheNextRow() throws {
        var matrix = MockKeyMatrix(rows: 4, columns: 4)
        matrix.press(row: MatrixScanLoopTests.star.row, column: MatrixScanLoopTests.star.column, at: .zero)
        let timing = VirtualScanTiming()
        let backend = MockMatrixBackend(matrix: matrix, timing: timing)
        backend.slowColumns = 0b0001
        backend.columnLag = .milliseconds(3)
        timing.sleep(for: .milliseconds(1))
        try backend.drive(row: 3)
        #expect(try backend.readColumns() == 0b0001)
        try backend.drive(row: 0)
        // Row 0 has no key down, yet column 0 still reads active: the phantom a plain scan sees.
        #expect(try backend.readColumns() == 0b0001)
        timing.sleep(for: .milliseconds(3))
        #expect(try backend.readColumns() == 0)
    }

    @Test func aColumnThatFollowsItsRowLateMakesNoPhantomKey() throws {
        var harness = MatrixHarness()
        // '*' (row 3, column 0) held 200 ms, three times; column 0 lags 3 ms behind every
        // change of the driven rows, so right after row 3 it still reads active for rows 0-2.
        for start in [10, 400, 800] {
            harness.matrix.press(row: 3, column: 0, at: .milliseconds(start))
            harness.matrix.release(row: 3, column: 0, at: .milliseconds(start + 200))
        }
        let (events, loop, _) = try harness.runTimed {
            $0.slowColumns = 0b0001
            $0.columnLag = .milliseconds(3)
        }
        #expect(labels(events.map(\.event)) == "+* -* +* -* +* -*")
        #expect(loop.rechecks > 0)
    }

    @Test func aLineHeldActiveWithNoRowDrivenIsReadAsItIs() throws {
        var harness = MatrixHarness()
        harness.settings.stuck = .seconds(1)
        harness.matrix.press(row: 1, column: 2, at: .milliseconds(10))
        harness.matrix.release(row: 1, column: 2, at: .seconds(3))
        // Column 2 lags far longer than the release timeout: a short, not a slow line. The
        // loop neither hangs nor spins: key 6 reads down (with its column-mates), and goes stuck.
        let (events, loop, _) = try harness.runTimed(extra: .seconds(2)) {
            $0.slowColumns = 0b0100
            $0.columnLag = .seconds(10)
        }
        let labelsSeen = labels(events.map(\.event))
        #expect(labelsSeen.contains("+6"))
        #expect(labelsSeen.contains("s6"))
        #expect(loop.scans < 2_000)
    }

    @Test func thePressIsDatedByItsEdgeNotByTheLateScan() throws {
        var harness = MatrixHarness()
        harness.matrix.press(row: 2, column: 1, at: .milliseconds(100))
        harness.matrix.release(row: 2, column: 1, at: .milliseconds(200))
        // The scan thread wakes 4 ms after the edge (scheduler latency).
        let (events, _, _) = try harness.runTimed { $0.wakeLatency = .milliseconds(4) }
        let press = try #require(events.first { if case .pressed = $0.event { true } else { false } })
        #expect(labels([press.event]) == "+8")
        // Debounced 10 ms from the contact (not from the scan 4 ms later), within one period.
        #expect(press.at >= .milliseconds(110))
        #expect(press.at <= .milliseconds(111) + .microseconds(500))
    }

    @Test func aChatteringPressIsDebouncedFromItsLastEdgeAndNotOneSlowScanLater() throws {
        var harness = MatrixHarness()
        // Key A (0,3) closes at 100 ms, chatters until 102.53 ms and opens at 150 ms.
        for (time, closed) in [(100_000, true), (100_250, false), (100_970, true), (101_800, false), (102_530, true), (150_000, false)] {
            harness.matrix.set(row: 0, column: 3, closed: closed, at: .microseconds(time))
        }
        // The loop wakes 0.7 ms after each edge, settles rows 1 ms and spends 150 µs per call.
        let (events, _, _) = try harness.runTimed(settle: .milliseconds(1), interval: .milliseconds(2)) {
            $0.wakeLatency = .microseconds(700)
            $0.callCost = .microseconds(150)
        }
        #expect(labels(events.map(\.event)) == "+A -A")
        // Never before the contact has been closed for the whole press time (from 102.53 ms)...
        #expect(events[0].at >= .microseconds(112_530))
        // ...and not after a scan that read row 0 open mid-chatter (about 102 ms) and the
        // idle read that found column 3 active again (about 106 ms): that came at 116.5 ms.
        #expect(events[0].at < .milliseconds(115))
    }

    @Test func aScanThatReadsAChatteringContactClosedDoesNotDateThePressFromItsFirstEdge() throws {
        var harness = MatrixHarness()
        // Key 1 (0,0) closes at 100 ms, opens at 100.6 ms and closes for good at 100.9 ms.
        for (time, closed) in [(100_000, true), (100_600, false), (100_900, true), (150_000, false)] {
            harness.matrix.set(row: 0, column: 0, closed: closed, at: .microseconds(time))
        }
        // Woken 0.1 ms after the first edge, scans at once and 1 ms apart would read row 0
        // closed (about 100.4 and 101.2 ms) and date the press from 100 ms: the key at 110 ms,
        // when the contact has been closed for only 9.1 ms.
        let (events, _, _) = try harness.runTimed {
            $0.wakeLatency = .microseconds(100)
            $0.callCost = .microseconds(20)
        }
        #expect(labels(events.map(\.event)) == "+1 -1")
        #expect(events[0].at >= .microseconds(110_900))
        #expect(events[0].at < .microseconds(111_900))
    }

    @Test func theScanThatEndsADebounceComesWhenItIsDueNotAtTheNextPeriod() throws {
        var harness = MatrixHarness()
        harness.matrix.press(row: 0, column: 1, at: .microseconds(100_300))
        harness.matrix.release(row: 0, column: 1, at: .milliseconds(200))
        // Woken 0.9 ms after the edge, the loop's 2 ms periods fall at 101.2, 103.2 ... 111.2
        // ms; the debounce (10 ms from the edge) ends at 110.3 ms, between two of them.
        let (events, _, _) = try harness.runTimed(interval: .milliseconds(2)) { $0.wakeLatency = .microseconds(900) }
        let press = try #require(events.first { if case .pressed = $0.event { true } else { false } })
        #expect(labels([press.event]) == "+2")
        #expect(press.at >= .microseconds(110_300))
        #expect(press.at < .microseconds(111_000))
    }

    @Test func aPressAlreadyDueWhenTheFirstScanReadsItsRowIsDeliveredThenNotAtTheScanEnd() throws {
        var harness = MatrixHarness()
        harness.matrix.press(row: 1, column: 1, at: .milliseconds(100))
        harness.matrix.release(row: 1, column: 1, at: .milliseconds(200))
        // The scan thread wakes 11 ms after the edge, after the press fell due (110 ms); each
        // row settles 1 ms, so row 1 (read twice: its reading changed) is read at 114 ms, and
        // the scan ends at 116 ms.
        let (events, _, _) = try harness.runTimed(settle: .milliseconds(1), interval: .milliseconds(2)) {
            $0.wakeLatency = .milliseconds(11)
        }
        #expect(labels(events.map(\.event)) == "+5 -5")
        #expect(events[0].at >= .milliseconds(110))
        #expect(events[0].at < .milliseconds(115))
    }

    @Test func aTapShorterThanThePressTimeMakesNoKey() throws {
        var harness = MatrixHarness()
        // Closed 4 ms, then a real press: only the second becomes a key.
        harness.matrix.set(row: 1, column: 2, closed: true, at: .milliseconds(100))
        harness.matrix.set(row: 1, column: 2, closed: false, at: .milliseconds(104))
        harness.matrix.press(row: 2, column: 0, at: .milliseconds(150))
        harness.matrix.release(row: 2, column: 0, at: .milliseconds(250))
        let (events, _, _) = try harness.runTimed(settle: .milliseconds(1), interval: .milliseconds(2))
        #expect(labels(events.map(\.event)) == "+7 -7")
    }

    @Test func everyFortyMillisecondTapIsCaughtWithSlowReadsAndAOneMillisecondSettle() throws {
        // Reads cost 100 µs each and rows settle for 1 ms (a scan takes ~5 ms), taps last
        // 40 ms, 80 ms apart, with 3 ms of bounce at each end.
        let random = SeededNumbers(seed: 80)
        var harness = MatrixHarness()
        let expected = harness.matrix.tapRandomKeys(
            500, of: MatrixHarness.layout, from: .milliseconds(5), down: .milliseconds(40), spacing: .milliseconds(80),
            bounce: { .milliseconds(3) }, random: random.next)
        let (events, _, _) = try harness.runTimed(settle: .milliseconds(1), interval: .milliseconds(2)) {
            $0.callCost = .microseconds(100)
        }
        let presses = events.compactMap { if case .pressed(let key) = $0.event { key.label } else { nil } }
        #expect(presses == expected)
    }
}
