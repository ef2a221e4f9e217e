/// The records the site itself writes among a door's events (beside the door's own,
/// ``DoorRecordType``), each with `source: site`.
public enum SiteRecordType: String, Sendable, CaseIterable {
    /// The door has sent nothing for `server.console.silent_after_minutes` (``DoorSilenceWatch``).
    case silent
    /// The door went over its event quota (``EventQuota``); stands a day.
    case eventQuotaExceeded = "event_quota_exceeded"
}
