import KeypadDisplay
import KioskPadCore
import Synchronization

/// Keeps every frame it is shown, for tests; can be told to fail to exercise error paths.
public final class RecordingDisplay: DisplayDriver {
    public let geometry: DisplayGeometry
    private let state = Mutex<(frames: [Frame], failing: Bool)>(([], false))

    /// The error a failing recording display throws.
    public struct Failure: Error, Equatable {}

    public init(geometry: DisplayGeometry) {
        self.geometry = geometry
    }

    public var frames: [Frame] { state.withLock { $0.frames } }

    public func setFailing(_ failing: Bool) {
        state.withLock { $0.failing = failing }
    }

    public func show(_ frame: Frame) async throws {
        try state.withLock { state in
            if state.failing { throw Failure() }
            state.frames.append(frame)
        }
    }

    public func close() async {}
}
