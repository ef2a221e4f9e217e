import DoorController
import KioskPadCore
import Logging

/// What the door makes of an OSDP reader's supervision: events for the journal, metrics and
/// Home Assistant, and log lines.
public enum OSDPReaderReports {
    /// A reader's reports as terminal events on `bus` and log lines (keys and cards never
    /// are); dropped messages are logged at most once per 10 s.
    public static func publisher(bus: TerminalEventBus, logger: Logger) -> @Sendable (UInt8, OSDPReaderEvent) -> Void {
        let limiter = LockedReportLimiter(interval: .seconds(10))
        return { address, event in
            let reader = Int(address)
            var report: ReaderReport?
            switch event {
            case .online(let secure):
                logger.notice("reader online", metadata: ["reader": "\(reader)", "secure": "\(secure)"])
                report = .online(secure: secure)
            case .offline:
                logger.error("reader offline", metadata: ["reader": "\(reader)"])
                report = .offline
            case .tamper(let active):
                logger.warning(active ? "reader tamper" : "reader tamper cleared", metadata: ["reader": "\(reader)"])
                report = .tamper(active: active)
            case .power(let ok):
                logger.warning(ok ? "reader power restored" : "reader power failed", metadata: ["reader": "\(reader)"])
                report = .power(ok: ok)
            case .refused(let reason):
                logger.error("reader refused", metadata: ["reader": "\(reader)", "reason": "\(reason)"])
                report = .refused(reason: reason)
            case .dropped(let reason):
                bus.publish(.readerMessageDropped(reason: reason))
                if let count = limiter.note() {
                    logger.warning("reader message dropped", metadata: ["reader": "\(reader)", "reason": "\(reason)", "dropped_since_last_report": "\(count)"])
                }
            case .nak(let code):
                logger.warning("reader refused a command", metadata: ["reader": "\(reader)", "nak": "\(code)"])
            case .keys, .card, .keySetAccepted:
                break
            }
            if let report { bus.publish(.reader(address: reader, report: report)) }
        }
    }
}
