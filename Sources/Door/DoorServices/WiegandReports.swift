import DoorController
import KeypadHAL
import KioskPadCore
import Logging

/// What the door makes of a Wiegand keypad's reports: each dropped frame published on the bus
/// (metrics count them; the journal records them at a rate limit) and logged at most once
/// per 10 s.
public enum WiegandReports {
    public static func publisher(bus: TerminalEventBus, logger: Logger) -> @Sendable (WiegandReport) -> Void {
        let limiter = LockedReportLimiter(interval: .seconds(10))
        return { report in
            guard case .dropped(let reason) = report else { return }
            bus.publish(.wiegandFrameDropped(reason: reason))
            if let count = limiter.note() {
                logger.warning("wiegand frame dropped", metadata: ["reason": "\(reason)", "dropped_since_last_report": "\(count)"])
            }
        }
    }
}
