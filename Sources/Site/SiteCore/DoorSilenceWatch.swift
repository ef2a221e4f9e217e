import Foundation
import KioskPadStorage

/// Notices a door gone silent: one whose newest record (an event or a status heartbeat) is
/// older than `silentAfter` (`server.console.silent_after_minutes`). The site writes one
/// `silent` record for it into the door's records, at the time of that newest record (so the
/// door's last-seen time stays true) and under an id made from that record's, so every
/// instance that notices writes the same one and it is stored, and sent as a `door.alert`
/// webhook, once. When the door speaks again and later falls silent again, its newest
/// record is another and so is the alert. A door silent for more than a day beyond the
/// limit when it is first checked (a door retired long ago) is left alone.
public struct DoorSilenceWatch: Sendable {
    /// How often every instance looks.
    public static let interval: Duration = .seconds(30)
    /// A door silent this long beyond the limit is not newly reported.
    public static let stale: TimeInterval = 86_400

    let store: any VerifierStore
    let silentAfter: TimeInterval

    public init(store: any VerifierStore, silentAfter: TimeInterval) {
        self.store = store
        self.silentAfter = silentAfter
    }

    /// Writes the `silent` record of each door newly silent at `now`; returns their ids.
    @discardableResult
    public func check(now: Date = Date()) async throws -> [String] {
        var noted: [String] = []
        let retired = try await store.retiredDoors()
        for door in try await store.recentEvents(perTerminal: 1) where !retired.contains(door.terminal) {
            guard let newest = door.newestFirst.first, newest.type != SiteRecordType.silent.rawValue else { continue }
            let quiet = now.timeIntervalSince(newest.time)
            guard quiet >= silentAfter, quiet < silentAfter + Self.stale else { continue }
            let lastSeen = UTCTimestamp.rfc3339(newest.time, milliseconds: true)
            let id = "silent-" + newest.id
            let json = """
                {"id":"\(id)","last_seen":"\(lastSeen)","noticed_at":"\(UTCTimestamp.rfc3339(now, milliseconds: true))",\
                "seq":\(newest.sequence),"silent_after_s":\(Int(silentAfter)),"source":"site","terminal_id":"\(door.terminal)","time":"\(lastSeen)","type":"silent"}
                """
            let record = DoorEvent(
                id: id, terminalID: door.terminal, type: SiteRecordType.silent.rawValue, time: newest.time, sequence: newest.sequence, json: json)
            if try await store.storeEvents([record]) > 0 { noted.append(door.terminal) }
        }
        return noted
    }
}
