import KeypadDisplay
import Synchronization

/// An ``I2CBus`` that keeps every byte written (with the virtual time it was written at)
/// and can be told to fail, for tests of the LCD driver, its faults and `display test`.
public final class RecordingI2CBus: I2CBus {
    public struct Write: Equatable, Sendable {
        public let byte: UInt8
        public let at: Duration
    }

    private let state = Mutex<(writes: [Write], failing: I2CError?, clock: Duration)>(([], nil, .zero))

    public init() {}

    public func write(_ bytes: [UInt8]) throws {
        try state.withLock { state in
            if let failure = state.failing { throw failure }
            for byte in bytes { state.writes.append(Write(byte: byte, at: state.clock)) }
        }
    }

    /// Every byte so far.
    public var writes: [Write] { state.withLock { $0.writes } }
    public var bytes: [UInt8] { writes.map(\.byte) }

    /// Makes writes fail with `error` (nil: work again).
    public func setFailure(_ error: I2CError?) {
        state.withLock { $0.failing = error }
    }

    /// Moves the recorder's clock; the driver's sleeps call this through ``RecordingSleeper``.
    public func advance(by duration: Duration) {
        state.withLock { $0.clock += duration }
    }

    public func clear() {
        state.withLock { $0.writes.removeAll() }
    }
}
