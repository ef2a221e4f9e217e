import KeypadHAL
import KioskPadCore
import Synchronization

/// Keeps a GPIO keypad going: when its chip cannot be opened or fails while running (a
/// loose ribbon, a chip gone), it reports that, waits (1 s doubling to 30 s) and opens it
/// again, so the terminal recovers instead of hanging or exiting. An entry typed halfway when
/// it fails is cleared. Keys go straight from
/// the open keypad to the consumer; the waits run on the terminal's clock.
public final class RetryingKeySource: KeySource, Sendable {
    public var isScripted: Bool { false }
    private let open: @Sendable () throws -> any KeySource
    private let report: @Sendable (_ ok: Bool, _ problem: String?) async -> Void
    private let clock: TerminalClock

    /// `open` opens the keypad; `report` is told when the keypad goes down (with why) and
    /// when it comes back.
    public init(
        open: @escaping @Sendable () throws -> any KeySource,
        report: @escaping @Sendable (_ ok: Bool, _ problem: String?) async -> Void,
        clock: TerminalClock = .continuous
    ) {
        self.open = open
        self.report = report
        self.clock = clock
    }

    public func start(
        deliver: @escaping @Sendable (KeySourceEvent) -> Void,
        finished: @escaping @Sendable ((any Error)?) -> Void
    ) -> KeySourceRun {
        let open = self.open
        let report = self.report
        let clock = self.clock
        let current = CurrentRun()
        let task = Task {
            var delay: Duration = .seconds(1)
            var failing = false
            while !Task.isCancelled {
                do {
                    let source = try open()
                    if failing { await report(true, nil) }
                    failing = false
                    delay = .seconds(1)
                    let ended = await RunningSource.run(source, deliver: deliver, current: current)
                    current.set(nil)
                    if Task.isCancelled { break }
                    deliver(.key(.action(.clear)))  // digits typed before it failed are wiped, not kept for its return
                    await report(false, ended.map { "\($0)" } ?? "the keypad stopped")
                } catch {
                    if !failing { await report(false, "\(error)") }
                }
                failing = true
                try? await clock.sleep(for: delay)
                delay = min(delay * 2, .seconds(30))
            }
        }
        // While the keypad is down and waiting to be reopened there is no reader to prove:
        // that is not a hang (it shows in the status and /healthz), so the probe answers true.
        return KeySourceRun(stop: { task.cancel() }, probe: { await current.get()?.probe(within: $0) ?? true })
    }
}

/// The reader of the keypad opened now, if any, for the watchdog's probe.
private final class CurrentRun: Sendable {
    private let run = Mutex<KeySourceRun?>(nil)
    func set(_ value: KeySourceRun?) { run.withLock { $0 = value } }
    func get() -> KeySourceRun? { run.withLock { $0 } }
}

/// One opened key source, run until it finishes or the waiting task is cancelled (which
/// stops it). Its `finished` may come before `start` returns.
private final class RunningSource: Sendable {
    private struct State {
        var continuation: CheckedContinuation<(any Error)?, Never>?
        var ended: (any Error)??
        var run: KeySourceRun?
        var cancelled = false
    }

    private let state = Mutex(State())

    static func run(_ source: any KeySource, deliver: @escaping @Sendable (KeySourceEvent) -> Void, current: CurrentRun) async -> (any Error)? {
        let running = RunningSource()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                running.arm(continuation)
                let run = source.start(deliver: deliver, finished: { running.finish($0) })
                current.set(run)
                running.set(run)
            }
        } onCancel: {
            running.cancel()
        }
    }

    private func arm(_ continuation: CheckedContinuation<(any Error)?, Never>) {
        let resumeWith: (any Error)?? = state.withLock { state in
            if state.cancelled { return .some(nil) }
            state.continuation = continuation
            return nil
        }
        if let resumeWith { continuation.resume(returning: resumeWith) }
    }

    private func set(_ run: KeySourceRun) {
        let stopNow = state.withLock { state in
            state.run = run
            return state.cancelled
        }
        if stopNow { run.stop() }
    }

    private func finish(_ error: (any Error)?) {
        let waiting = state.withLock { state -> CheckedContinuation<(any Error)?, Never>? in
            guard state.ended == nil else { return nil }
            state.ended = .some(error)
            defer { state.continuation = nil }
            return state.continuation
        }
        waiting?.resume(returning: error)
    }

    private func cancel() {
        let (waiting, run) = state.withLock { state -> (CheckedContinuation<(any Error)?, Never>?, KeySourceRun?) in
            state.cancelled = true
            guard state.ended == nil else { return (nil, state.run) }
            state.ended = .some(nil)
            defer { state.continuation = nil }
            return (state.continuation, state.run)
        }
        run?.stop()
        waiting?.resume(returning: nil)
    }
}
