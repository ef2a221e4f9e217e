import DoorController
import DoorServices
import KeypadHAL
import KioskPadConfig
import KioskPadCore
import Logging
import Synchronization

extension KeypadAssembly {
    /// The GPIO keypad as the terminal's key source, reopened with back-off (1 s doubling to
    /// 30 s) when it is missing or fails. A line the chip does not have throws at once (a
    /// retry cannot fix it); a missing chip, a busy line or a permission may clear, so they
    /// are logged and retried while the rest of the terminal runs. Keypad faults and health
    /// are published on `bus`.
    public static func retryingSource(
        _ gpio: GPIOKeypadConfiguration, bus: TerminalEventBus, logger: Logger
    ) throws -> RetryingKeySource {
        var first: MatrixScanLoop?
        do {
            first = try scanLoop(gpio)
        } catch let error as KeyedError where !error.needsConfigChange {
            logger.error("keypad unavailable at start; retrying with back-off", metadata: ["problem": "\(error)"])
        }
        let pending = OpenedAtStart(first)
        return RetryingKeySource(
            open: {
                let loop = try pending.take() ?? scanLoop(gpio)
                return MatrixKeySource(
                    loop: loop,
                    diagnostics: { event in
                        guard let fault = fault(event) else { return }
                        logger.warning("keypad fault", metadata: ["kind": "\(fault.kind)", "detail": "\(fault.detail)"])
                        bus.publish(.keypadFault(kind: fault.kind, detail: fault.detail))
                    },
                    started: {
                        logger.notice(
                            "keypad ready",
                            metadata: [
                                "chip": "\(gpio.chip)", "matrix": "\(gpio.rows.count)x\(gpio.columns.count)",
                                "library": "\(GPIOBackendFactory.library)",
                            ])
                    })
            },
            report: healthReport(bus: bus, logger: logger))
    }

    /// Logs and publishes a keypad going down (with why) and coming back.
    static func healthReport(bus: TerminalEventBus, logger: Logger) -> @Sendable (Bool, String?) async -> Void {
        { ok, problem in
            if ok {
                logger.notice("keypad recovered")
            } else {
                logger.error("keypad failed; retrying", metadata: ["problem": "\(problem ?? "")"])
            }
            bus.publish(.keypadHealth(ok: ok))
        }
    }

    /// The terminal event for a scanner diagnostic that is a fault (ghosting, a stuck key).
    static func fault(_ event: ScanEvent) -> (kind: String, detail: String)? {
        switch event {
        case .ghosting(let keys): return ("ghosting", "\(keys.count) keys form a rectangle")
        case .stuck(let key): return ("stuck", "row \(key.row) column \(key.column)")
        default: return nil
        }
    }
}

/// Hands what was opened at start (the scan loop, the input device; nil if it did not open)
/// to the first keypad open, once.
private final class OpenedAtStart<Value>: Sendable {
    private let slot: Mutex<Value?>

    init(_ value: sending Value?) {
        slot = Mutex(value)
    }

    func take() -> sending Value? {
        slot.withLock { value in
            defer { value = nil }
            return value
        }
    }
}

extension KeypadAssembly {
    /// A kernel input device as the terminal's key source (`driver: evdev`). It must be
    /// there at start (else an error naming `keypad.device`); unplugged later, it is
    /// reported down and reopened with back-off (1 s doubling to 30 s) until it is back.
    public static func retryingEvdevSource(
        _ evdev: EvdevKeypadConfiguration, bus: TerminalEventBus, logger: Logger
    ) throws -> RetryingKeySource {
        let map = EvdevKeyMap(overrides: evdev.keyMap)
        let pending = OpenedAtStart(try EvdevKeySource(device: evdev.device, map: map))
        return RetryingKeySource(
            open: {
                let source = try pending.take() ?? EvdevKeySource(device: evdev.device, map: map)
                logger.notice("keypad ready", metadata: ["device": "\(source.path)", "name": "\(source.name)"])
                return source
            },
            report: healthReport(bus: bus, logger: logger))
    }
}

extension KeypadAssembly {
    /// A Wiegand keypad on two GPIO lines as the terminal's key source (`driver: wiegand`),
    /// reopened with back-off like the matrix. Whole-PIN frames fit the entry's
    /// `min_length...max_length`. Each dropped frame is published on `bus` (metrics count
    /// them; the journal records them at a rate limit) and logged at most once per 10 s.
    public static func retryingWiegandSource(
        _ wiegand: WiegandKeypadConfiguration, entry: EntryOptions, bus: TerminalEventBus, logger: Logger
    ) throws -> RetryingKeySource {
        let limiter = LockedReportLimiter(interval: .seconds(10))
        let open: @Sendable () throws -> WiegandKeySource = {
            try WiegandKeySource(
                chip: wiegand.chip, d0: wiegand.d0, d1: wiegand.d1, frameGap: wiegand.frameGap,
                pinDigits: entry.minLength...entry.maxLength, longFrames: wiegand.longFrames,
                report: { report in
                    guard case .dropped(let reason) = report else { return }
                    bus.publish(.wiegandFrameDropped(reason: reason))
                    if let count = limiter.note() {
                        logger.warning("wiegand frame dropped", metadata: ["reason": "\(reason)", "dropped_since_last_report": "\(count)"])
                    }
                })
        }
        return try retrying(
            open, bus: bus, logger: logger,
            ready: [
                "chip": "\(wiegand.chip)", "wiegand": "d0 \(wiegand.d0), d1 \(wiegand.d1)", "library": "\(GPIOBackendFactory.library)",
            ])
    }

    /// A key source reopened with back-off (1 s doubling to 30 s): opened once now, where an
    /// error that a retry may clear is logged and retried while the rest of the terminal runs
    /// (one that needs a config change throws); `ready` is logged at each open.
    static func retrying<Source: KeySource>(
        _ open: @escaping @Sendable () throws -> Source, bus: TerminalEventBus, logger: Logger, ready: Logger.Metadata
    ) throws -> RetryingKeySource {
        var first: Source?
        do {
            first = try open()
        } catch let error as KeyedError where !error.needsConfigChange {
            logger.error("keypad unavailable at start; retrying with back-off", metadata: ["problem": "\(error)"])
        }
        let pending = OpenedAtStart(first)
        return RetryingKeySource(
            open: {
                let source = try pending.take() ?? open()
                logger.notice("keypad ready", metadata: ready)
                return source
            },
            report: healthReport(bus: bus, logger: logger))
    }
}

/// A ``ReportLimiter`` behind a lock, timed from its creation, for a report callback any
/// thread calls (dropped Wiegand frames, dropped OSDP messages).
final class LockedReportLimiter: Sendable {
    private let limiter: Mutex<ReportLimiter>
    private let origin = ContinuousClock.now

    init(interval: Duration) {
        limiter = Mutex(ReportLimiter(interval: interval))
    }

    /// The number of reports since the last one let through, when this one is; nil otherwise.
    func note() -> Int? {
        let now = origin.duration(to: .now)
        return limiter.withLock { $0.note(at: now) }
    }
}
