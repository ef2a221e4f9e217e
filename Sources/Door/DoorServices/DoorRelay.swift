import DoorController
import KeypadHAL
import KioskPadCore
import Logging
import Synchronization

/// The door relay: energised for the unlock time on a grant, and held energised while the
/// door is released (``hold(_:)``), and only then. Off at start, off when the time is up,
/// off on shutdown, off on any error. A grant's `unlock_seconds`
/// overrides the default and is clamped to the maximum. Every write to the relay happens
/// under one lock, so after ``shutdown()`` (callable from a signal handler) it can never
/// be energised again, not even by an answer that was already on its way.
public final class DoorRelay: TerminalEventSink {
    private struct State {
        var generation = 0
        var stopped = false
        var energised = false
        /// Held on by the door's mode (release): no unlock time drops it until the hold ends.
        var held = false
        /// When the relay last went off (a ``TerminalClock`` reading), for forced-open checks.
        var releasedAt: Duration?
    }

    private let output: any DigitalOutput
    public let defaultUnlock: Duration
    public let maxUnlock: Duration
    private let logger: Logger
    private let state = Mutex(State())
    /// Told (on, seconds) whenever the relay changes, for the journal and metrics.
    private let observer: @Sendable (Bool, Int) async -> Void
    /// How the unlock time passes (a manual clock in tests).
    private let clock: TerminalClock
    /// A pulse that ends later than this after its time is logged as a warning.
    static let lateWarning = Duration.milliseconds(20)

    public init(
        output: any DigitalOutput, defaultUnlock: Duration, maxUnlock: Duration, logger: Logger,
        clock: TerminalClock = .continuous,
        observer: @escaping @Sendable (Bool, Int) async -> Void = { _, _ in }
    ) throws {
        self.output = output
        self.clock = clock
        self.defaultUnlock = defaultUnlock
        self.maxUnlock = maxUnlock
        self.logger = logger
        self.observer = observer
        try output.set(false)
    }

    public var isEnergised: Bool { state.withLock { $0.energised } }

    /// True while the relay is on, or when it went off less than `grace` ago: a door that
    /// opens now was let open.
    public func unlockedRecently(within grace: Duration) -> Bool {
        let now = clock.now
        return state.withLock { state in
            state.energised || state.releasedAt.map { now - $0 < grace } == true
        }
    }

    /// Drops the relay now (re-lock on open), ending the current unlock early; not while held.
    public func lock() async {
        await release(ifGeneration: nil)
    }

    /// Holds the relay energised (a release: fire alarm or the site's) until `hold(false)`,
    /// which drops it. Nothing else drops a held relay but ``shutdown()``. Synchronous, under
    /// the one lock, so a caller's holds and releases happen in the order it makes them;
    /// returns whether the relay changed (then ``announce(_:)`` it).
    public func hold(_ on: Bool) -> Bool {
        let now = clock.now
        let result: Result<Bool, any Error> = state.withLock { state in
            guard !state.stopped else { return .success(false) }
            state.generation += 1  // a running unlock's timer no longer drops it
            state.held = on
            let was = state.energised
            guard on else {
                DoorRelay.forceOff(output, logger)
                state.energised = false
                if was { state.releasedAt = now }
                return .success(was)
            }
            do {
                try output.set(true)
                state.energised = true
                return .success(!was)
            } catch {
                try? output.set(false)
                state.energised = false
                return .failure(error)
            }
        }
        switch result {
        case .success(let changed):
            if changed { logger.notice(on ? "door relay held energised (release)" : "door relay released after the release ended") }
            return changed
        case .failure(let error):
            logger.critical("door relay could not be held energised for the release", metadata: ["error": "\(error)"])
            return false
        }
    }

    /// Tells the observer (journal, metrics) that a ``hold(_:)`` changed the relay.
    public func announce(_ on: Bool) async {
        await observer(on, 0)
    }

    public func handle(_ event: TerminalEvent) async {
        guard case .attemptDecided(_, _, let outcome, _, _, _) = event else { return }
        if case .granted(_, let seconds, _, _) = outcome {
            let requested = seconds.map { Duration.seconds($0) } ?? defaultUnlock
            await unlock(for: min(max(requested, .seconds(1)), maxUnlock))
        }
    }

    /// Energises the relay for `duration` (restarting the timer if already open).
    public func unlock(for duration: Duration) async {
        let result: Result<(generation: Int, on: Duration), any Error>? = state.withLock { state in
            guard !state.stopped, !state.held else { return nil }
            do {
                try output.set(true)
                state.generation += 1
                state.energised = true
                return .success((state.generation, clock.now))
            } catch {
                try? output.set(false)
                state.energised = false
                return .failure(error)
            }
        }
        switch result {
        case nil:
            return
        case .failure(let error):
            logger.error("door relay failed; forced off", metadata: ["error": "\(error)"])
        case .success(let (generation, on)):
            // The pulse ends `duration` after the relay went on (read under the lock, just
            // after the write), however long the observer (journal, Home Assistant) or a busy
            // thread pool takes before the timer starts.
            let until = on + duration
            logger.notice("door unlocked", metadata: ["seconds": "\(duration.wholeSeconds)"])
            await observer(true, duration.wholeSeconds)
            guard clock.isSystem else {
                Task {
                    try? await clock.sleep(until: until)
                    await self.release(ifGeneration: generation)
                }
                return
            }
            // On the system clock the pulse ends on a thread of its own, so a busy thread pool
            // (replica checks, posts to a slow network) cannot keep the door open longer.
            PulseTimer.fire(at: until, on: clock) { [self] in
                guard dropRelay(ifGeneration: generation) else { return }
                // How late the relay went off, after the write: a loaded system shows here
                // (the fault suite compares it with what its watcher saw on the line).
                let late = clock.now - until
                if late > DoorRelay.lateWarning {
                    logger.warning("door relay went off late", metadata: ["late_ms": "\(late.wholeMilliseconds)", "seconds": "\(duration.wholeSeconds)"])
                }
                Task { await observer(false, 0) }
            }
        }
    }

    private func release(ifGeneration generation: Int?) async {
        if dropRelay(ifGeneration: generation) { await observer(false, 0) }
    }

    /// Drops the relay unless it is held or another unlock began since `generation`; true
    /// when it was on.
    private func dropRelay(ifGeneration generation: Int?) -> Bool {
        let now = clock.now
        return state.withLock { state -> Bool in
            guard !state.held, generation == nil || generation == state.generation else { return false }
            let was = state.energised
            DoorRelay.forceOff(output, logger)
            state.energised = false
            if was { state.releasedAt = now }
            return was
        }
    }

    /// Off, and off for good. Safe from any thread, including a signal handler's queue.
    public func shutdown() {
        state.withLock { state in
            state.stopped = true
            state.held = false
            state.generation += 1
            DoorRelay.forceOff(output, logger)
            state.energised = false
        }
    }

    private static func forceOff(_ output: any DigitalOutput, _ logger: Logger) {
        do {
            try output.set(false)
        } catch {
            logger.critical("door relay did not switch off; retrying", metadata: ["error": "\(error)"])
            try? output.set(false)
        }
    }
}
