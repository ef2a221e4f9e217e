import KioskPadCore

/// A ``KeySource`` over a matrix keypad: the scan loop runs on its own thread and every
/// debounced press becomes a key label. Releases, holds, ghosting and stuck keys go to
/// `diagnostics` (for logs and `keytest`); a backend failure ends the reader with the
/// error.
public final class MatrixKeySource: KeySource, Sendable {
    public var isScripted: Bool { false }
    public let thread: ScanThread
    private let diagnostics: @Sendable (ScanEvent) -> Void
    private let started: @Sendable () -> Void

    /// `started` runs on the scan thread just before its first scan.
    public init(
        loop: MatrixScanLoop,
        diagnostics: @escaping @Sendable (ScanEvent) -> Void = { _ in },
        started: @escaping @Sendable () -> Void = {}
    ) {
        thread = ScanThread(loop: loop)
        self.diagnostics = diagnostics
        self.started = started
    }

    /// The scan thread calls `deliver` for each debounced press; a backend failure goes to
    /// `finished`, and the thread ends.
    public func start(
        deliver: @escaping @Sendable (KeySourceEvent) -> Void,
        finished: @escaping @Sendable ((any Error)?) -> Void
    ) -> KeySourceRun {
        let diagnostics = self.diagnostics
        let thread = self.thread
        thread.start(
            started: started,
            deliver: { event in
                if case .pressed(let key) = event { deliver(.key(.label(key.label))) }
                diagnostics(event)
            },
            failed: { error in finished(error) })
        return KeySourceRun(stop: { thread.stop() }, probe: { await thread.probe(within: $0) })
    }
}
