import KeypadCore

/// A ``KeySource`` over a matrix keypad: the scan loop runs on its own thread and every
/// debounced press becomes a key label. Releases, holds, ghosting and stuck keys go to
/// `diagnostics` (for logs and `keytest`); a backend failure ends the stream after
/// reporting it.
public final class MatrixKeySource: KeySource, Sendable {
    public var isScripted: Bool { false }
    public let thread: ScanThread
    private let diagnostics: @Sendable (ScanEvent) -> Void
    private let failure: @Sendable (any Error) -> Void
    private let started: @Sendable () -> Void

    /// `started` runs on the scan thread just before its first scan.
    public init(
        loop: MatrixScanLoop,
        diagnostics: @escaping @Sendable (ScanEvent) -> Void = { _ in },
        failure: @escaping @Sendable (any Error) -> Void = { _ in },
        started: @escaping @Sendable () -> Void = {}
    ) {
        thread = ScanThread(loop: loop)
        self.diagnostics = diagnostics
        self.failure = failure
        self.started = started
    }

    public func events() -> AsyncStream<KeySourceEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: KeySourceEvent.self)
        let diagnostics = self.diagnostics
        let failure = self.failure
        let thread = self.thread
        continuation.onTermination = { _ in thread.stop() }
        thread.start(
            started: started,
            deliver: { event in
                if case .pressed(let key) = event { continuation.yield(.key(.label(key.label))) }
                diagnostics(event)
            },
            failed: { error in
                failure(error)
                continuation.finish()
            })
        return stream
    }
}
