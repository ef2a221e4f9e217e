import Foundation
import KioskPadCore

/// How the LCD driver pauses: real sleeps on the device, virtual time in tests.
public protocol LCDSleeper: Sendable {
    func sleep(for duration: Duration)
}

/// Real pauses (`Thread.sleep`): the LCD worker thread owns no other work.
public struct ThreadSleeper: LCDSleeper {
    public init() {}
    public func sleep(for duration: Duration) {
        Thread.sleep(forTimeInterval: duration.timeInterval)
    }
}

/// An HD44780 character LCD (16x2 or 20x4) on a PCF8574 I2C backpack, as a
/// ``DisplayDriver``. ``show(_:)`` only hands the frame to a worker thread, so a slow or
/// dead display never holds up the keypad, the verifier or the door. The worker writes
/// only the cells that changed; on an I2C error it logs once, backs off (doubling up to
/// the last retry delay) and, when the bus answers again, re-initialises the LCD and
/// redraws the latest frame.
public final class HD44780Display: DisplayDriver, @unchecked Sendable {
    // @unchecked: mutable state is guarded by `condition` (a condition variable: the worker
    // sleeps until a frame arrives, waitUntilShown until it is drawn); the bus and shadow are touched
    // only by the worker thread (or by render() in single-threaded tests).
    public let geometry: DisplayGeometry
    public let encoder: HD44780Encoder
    private let bus: any I2CBus
    private let sleeper: any LCDSleeper
    private let retryDelays: [Duration]
    private let log: @Sendable (String) -> Void
    private let condition = NSCondition()
    private var pending: Frame?
    private var closed = false
    private var busy = false
    private var shadow: [[UInt8]]?
    /// The backlight the LCD has now (nil: not initialised).
    private var shadowBacklight: Bool?
    private var failures = 0
    private var counters = (bytes: 0, errors: 0, initialisations: 0)

    public init(
        geometry: DisplayGeometry, bus: any I2CBus, encoder: HD44780Encoder = HD44780Encoder(),
        sleeper: any LCDSleeper = ThreadSleeper(),
        retryDelays: [Duration] = [.milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8)],
        log: @escaping @Sendable (String) -> Void = { _ in }, startWorker: Bool = true
    ) {
        precondition(geometry == .lcd1602 || geometry == .lcd2004, "HD44780 geometries: 16x2, 20x4")
        self.geometry = geometry
        self.bus = bus
        self.encoder = encoder
        self.sleeper = sleeper
        self.retryDelays = retryDelays
        self.log = log
        if startWorker {
            let thread = Thread { [self] in work() }
            thread.name = "kp-lcd"
            thread.start()
        }
    }

    public func show(_ frame: Frame) async throws {
        condition.withLock {
            pending = frame
            condition.broadcast()
        }
    }

    public func close() async {
        condition.withLock {
            closed = true
            condition.broadcast()
        }
    }

    /// Bytes written, I2C errors seen, and initialisations done so far.
    public var statistics: (bytes: Int, errors: Int, initialisations: Int) {
        condition.withLock { counters }
    }

    /// Waits until the latest frame is on the LCD (tests and `display test`); false on timeout.
    public func waitUntilShown(timeout: Duration = .seconds(5)) -> Bool {
        let deadline = Date().addingTimeInterval(timeout.timeInterval)
        return condition.withLock {
            while pending != nil || busy {
                if !condition.wait(until: deadline) { return false }
            }
            return true
        }
    }

    /// Draws `frame` now on the calling thread: initialises first if needed, then writes
    /// only the changed cells. Throws the bus error; the next call re-initialises.
    public func render(_ frame: Frame) throws {
        let cells = frame.rows.prefix(geometry.rows).map { row in
            let codes = row.prefix(geometry.columns).map(HD44780Encoder.code(for:))
            return codes + Array(repeating: UInt8(ascii: " "), count: geometry.columns - codes.count)
        }
        // The backlight bit rides on every byte: a dark frame is written with it clear.
        let encoder = HD44780Encoder(pins: self.encoder.pins, backlight: self.encoder.backlight && frame.backlight)
        do {
            if shadow == nil {
                try run(encoder.initialization(rows: geometry.rows))
                condition.withLock { counters.initialisations += 1 }
            } else if shadowBacklight != encoder.backlight {
                // E stays low, so the LCD ignores this byte; only the backlight pin changes.
                try run([.bytes([encoder.backlight ? 1 << UInt8(encoder.pins.backlight) : 0])])
            }
            shadowBacklight = encoder.backlight
            for run in FrameDiff.runs(from: shadow, to: cells) {
                try self.run(encoder.move(row: run.row, column: run.column) + encoder.text(run.codes))
            }
            shadow = cells
        } catch {
            shadow = nil
            throw error
        }
    }

    private func run(_ steps: [LCDStep]) throws {
        for step in steps {
            switch step {
            case .bytes(let bytes):
                try bus.write(bytes)
                condition.withLock { counters.bytes += bytes.count }
            case .wait(let duration):
                sleeper.sleep(for: duration)
            }
        }
    }

    private func work() {
        while true {
            let frame: Frame? = condition.withLock {
                while pending == nil && !closed { condition.wait() }
                if closed { return nil }
                busy = true
                defer { pending = nil }
                return pending
            }
            guard let frame else { return }
            do {
                try render(frame)
                if failures > 0 { log("display answers again after \(failures) failed attempts; re-initialised") }
                failures = 0
                condition.withLock {
                    busy = false
                    condition.broadcast()
                }
            } catch {
                if failures == 0 { log("display write failed: \(error); retrying with back-off") }
                let delay = retryDelays[min(failures, retryDelays.count - 1)]
                failures += 1
                condition.withLock {
                    counters.errors += 1
                    if pending == nil { pending = frame }  // keep the newest frame for the retry
                }
                sleeper.sleep(for: delay)
                condition.withLock { busy = false }
            }
        }
    }
}
