import KeypadCore
import KeypadHAL

/// Keeps a GPIO keypad going: when its chip cannot be opened or fails while running (a
/// loose ribbon, a chip gone), it reports that, waits (1 s doubling to 30 s) and opens it
/// again, so the terminal recovers instead of hanging or exiting.
public final class RetryingKeySource: KeySource, Sendable {
    public var isScripted: Bool { false }
    private let open: @Sendable (@escaping @Sendable (any Error) -> Void) throws -> any KeySource
    private let report: @Sendable (_ ok: Bool, _ problem: String?) async -> Void
    private let clock: TerminalClock

    /// `open` opens the keypad and hands it the function to call with the reason when it
    /// fails; `report` is told when the keypad goes down (with why) and comes back.
    public init(
        open: @escaping @Sendable (@escaping @Sendable (any Error) -> Void) throws -> any KeySource,
        report: @escaping @Sendable (_ ok: Bool, _ problem: String?) async -> Void,
        clock: TerminalClock = .continuous
    ) {
        self.open = open
        self.report = report
        self.clock = clock
    }

    public func events() -> AsyncStream<KeySourceEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: KeySourceEvent.self)
        let open = self.open
        let report = self.report
        let clock = self.clock
        let task = Task {
            var delay: Duration = .seconds(1)
            var failing = false
            while !Task.isCancelled {
                let failure = FailureBox()
                do {
                    let source = try open { failure.set("\($0)") }
                    if failing { await report(true, nil) }
                    failing = false
                    delay = .seconds(1)
                    for await event in source.events() { continuation.yield(event) }
                    if Task.isCancelled { break }
                    await report(false, failure.value ?? "the keypad stopped")
                } catch {
                    if !failing { await report(false, "\(error)") }
                }
                failing = true
                try? await clock.sleep(for: delay)
                delay = min(delay * 2, .seconds(30))
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}

import Synchronization

/// The first failure text reported by a scan thread.
final class FailureBox: Sendable {
    private let text = Mutex<String?>(nil)
    func set(_ message: String) { text.withLock { if $0 == nil { $0 = message } } }
    var value: String? { text.withLock { $0 } }
}
