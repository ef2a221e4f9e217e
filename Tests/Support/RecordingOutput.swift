import Foundation
import KeypadHAL
import KioskPadCore
import Synchronization

/// Keeps every state change with its time, and can be told to fail, or to take `offWrite`
/// to switch off when it was on (a line whose write blocks, or a thread that runs late; only
/// then, so the off at a relay's start does not block the caller's thread).
public final class RecordingOutput: DigitalOutput {
    private let state = Mutex<(changes: [(on: Bool, at: ContinuousClock.Instant)], failing: Bool)>(([], false))
    private let offWrite: Duration

    public init(offWrite: Duration = .zero) {
        self.offWrite = offWrite
    }

    public func set(_ on: Bool) throws {
        if !on && offWrite > .zero && isOn {
            Thread.sleep(forTimeInterval: offWrite.timeInterval)
        }
        try state.withLock {
            if $0.failing { throw KeyedError(key: "test", message: "output failing", kind: .unavailable(retryable: true)) }
            $0.changes.append((on, ContinuousClock.now))
        }
    }

    public var changes: [(on: Bool, at: ContinuousClock.Instant)] { state.withLock { $0.changes } }
    public var isOn: Bool { changes.last?.on ?? false }
    public var everOn: Bool { changes.contains { $0.on } }

    public func setFailing(_ failing: Bool) {
        state.withLock { $0.failing = failing }
    }
}
