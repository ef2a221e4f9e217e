import DoorController
import KeypadHAL
import KioskPadCore
import Logging

extension RetryingKeySource {
    /// A key source reopened with back-off (1 s doubling to 30 s): opened once now, where an
    /// error that a retry may clear is logged and retried while the rest of the terminal runs
    /// (one that needs a config change throws); `ready` is logged at each open (nil: the
    /// source logs it itself).
    public static func opening<Source: KeySource>(
        _ open: @escaping @Sendable () throws -> Source, bus: TerminalEventBus, logger: Logger, ready: Logger.Metadata?
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
                if let ready { logger.notice("keypad ready", metadata: ready) }
                return source
            },
            report: healthReport(bus: bus, logger: logger))
    }

    /// Logs and publishes a keypad going down (with why) and coming back.
    public static func healthReport(bus: TerminalEventBus, logger: Logger) -> @Sendable (Bool, String?) async -> Void {
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
    public static func fault(_ event: ScanEvent) -> (kind: String, detail: String)? {
        switch event {
        case .ghosting(let keys): return ("ghosting", "\(keys.count) keys form a rectangle")
        case .stuck(let key): return ("stuck", "row \(key.row) column \(key.column)")
        default: return nil
        }
    }
}
