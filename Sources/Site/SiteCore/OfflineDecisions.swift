import Foundation
import KioskPadCore
import KioskPadStorage

/// A decision a door made without the site: decided from its credential replica (`offline`)
/// or refused because it could not decide alone (`offline_refused`). The site never saw the
/// attempt at `/verify`, so when the door forwards its `attempt` record the site writes it
/// into the audit log as a decision, as if made at `/verify` but marked `offline` and with the
/// door's time: the console's entries, the audit feed and the `access.decided` webhook all
/// show it. An attempt the site decided online is audited at `/verify` already and is not
/// written again.
public enum OfflineDecisions {
    /// The audit fields of `event`, or nil when it is not an offline decision.
    public static func auditFields(_ event: DoorEvent) -> [(String, String)]? {
        guard event.type == DoorRecordType.attempt.rawValue,
            let record = try? JSONSerialization.jsonObject(with: Data(event.json.utf8)) as? [String: Any],
            let decision = (record["decision"] as? String).flatMap(Decision.init(rawValue:)), Decision.answered.contains(decision)
        else { return nil }
        let refused = record["offline_refused"] as? String
        guard record["offline"] as? Bool == true || refused != nil else { return nil }
        var fields: [(String, String)] = [("terminal_id", event.terminalID)]
        for key in ["kind", "decision", "user", "reason", "attempt_id"] {
            if let value = record[key] as? String { fields.append((key, value)) }
        }
        fields.append(("offline", refused == nil ? "decided" : "refused"))
        if let refused { fields.append(("offline_refused", refused)) }
        if let version = record["replica_version"] as? Int { fields.append(("replica_version", String(version))) }
        fields.append(("decided_at", UTCTimestamp.rfc3339(event.time, milliseconds: true)))
        return fields
    }
}
