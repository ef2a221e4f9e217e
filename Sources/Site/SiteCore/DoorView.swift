import Foundation
import KioskPadCore

/// One door as the site sees it from the records its terminal forwarded: when it was last
/// heard from, its door contact, keypad, tamper, lockout, last decision, and the alerts
/// still standing (held open, forced, tamper, duress, keypad failed, silent). Folded from
/// its newest records; the same for every store and every instance.
public struct DoorView: Sendable, Equatable {
    public let terminalID: String
    public let lastSeen: Date
    public var door = "unknown"
    public var keypad = "ok"
    public var tamper = "clear"
    public var lockedOut = "no"
    /// `normal`, `lockdown` or `release`, as the door last said (`door_mode`, `status`).
    public var mode = "normal"
    public var lastDecision: String?
    public var lastUser: String?
    /// Alert names, in the order they were raised: `held_open`, `forced_open`, `tamper`,
    /// `duress`, `keypad_failed`, `reader_offline` (an OSDP reader offline or refused),
    /// `reader_tamper`, `fire_release` (the door's fire-alarm input released it), `silent`.
    public var alerts: [String] = []
    /// The OSDP readers (by address) that are offline or refused, and that report tamper.
    public var readersDown: Set<Int> = []
    public var readersTampered: Set<Int> = []
    /// When each standing alert was (last) raised: an acknowledgement older than that no
    /// longer covers it.
    public var raisedAt: [String: Date] = [:]

    /// Every alert name a view can raise.
    public static let alertNames = [
        "held_open", "forced_open", "tamper", "duress", "keypad_failed", "silent", "event_quota", "reader_offline", "reader_tamper",
        "fire_release",
    ]

    public init(terminalID: String, lastSeen: Date) {
        self.terminalID = terminalID
        self.lastSeen = lastSeen
    }

    /// The view of `terminal` from its records `newestFirst`, at `now`: a door not heard
    /// from for `silentAfter` has the `silent` alert. A duress stands for `duressFor`.
    public static func fold(
        terminal: String, newestFirst records: [DoorEvent], now: Date, silentAfter: TimeInterval, duressFor: TimeInterval = 86_400
    ) -> DoorView? {
        guard let newest = records.first else { return nil }
        var view = DoorView(terminalID: terminal, lastSeen: newest.time)
        // Oldest first, so a later record overrides an earlier one.
        var raised: [String] = []
        var raisedAt: [String: Date] = [:]
        var time = newest.time
        func raise(_ alert: String) {
            if !raised.contains(alert) { raisedAt[alert] = time }
            raised.removeAll { $0 == alert }
            raised.append(alert)
        }
        func clear(_ alert: String) { raised.removeAll { $0 == alert } }
        for record in records.reversed() {
            time = record.time
            let fields = (try? JSONSerialization.jsonObject(with: Data(record.json.utf8)) as? [String: Any]) ?? [:]
            switch DoorRecordType(rawValue: record.type) {
            case .status?:
                view.door = fields["door"] as? String ?? view.door
                view.keypad = fields["keypad"] as? String ?? view.keypad
                view.tamper = fields["tamper"] as? String ?? view.tamper
                view.lockedOut = fields["locked_out"] as? String ?? view.lockedOut
                if view.keypad == "failed" { raise("keypad_failed") } else { clear("keypad_failed") }
                if view.tamper == "active" { raise("tamper") } else { clear("tamper") }
                if view.door == "closed" {
                    clear("held_open")
                    clear("forced_open")
                }
                if let mode = fields["mode"] as? String {
                    view.mode = mode
                    if mode == "release" && fields["mode_source"] as? String == "fire_alarm" { raise("fire_release") } else { clear("fire_release") }
                }
            case .doorMode?:
                view.mode = fields["mode"] as? String ?? view.mode
                if view.mode == "release" && fields["source"] as? String == "fire_alarm" { raise("fire_release") } else { clear("fire_release") }
            case .doorOpened?: view.door = "open"
            case .doorClosed?:
                view.door = "closed"
                clear("held_open")
                clear("forced_open")
            case .heldOpen?:
                view.door = "held_open"
                raise("held_open")
            case .forcedOpen?:
                view.door = "forced_open"
                raise("forced_open")
            case .tamper?:
                view.tamper = "active"
                raise("tamper")
            case .tamperCleared?:
                view.tamper = "clear"
                clear("tamper")
            case .keypadFailed?:
                view.keypad = "failed"
                raise("keypad_failed")
            case .keypadRecovered?:
                view.keypad = "ok"
                clear("keypad_failed")
            case .readerOffline?, .readerRefused?, .readerOnline?:
                guard let reader = fields["reader"] as? Int else { break }
                if record.type == DoorRecordType.readerOnline.rawValue { view.readersDown.remove(reader) } else { view.readersDown.insert(reader) }
                if view.readersDown.isEmpty { clear("reader_offline") } else { raise("reader_offline") }
            case .readerTamper?, .readerTamperCleared?:
                guard let reader = fields["reader"] as? Int else { break }
                if record.type == DoorRecordType.readerTamper.rawValue { view.readersTampered.insert(reader) } else { view.readersTampered.remove(reader) }
                if view.readersTampered.isEmpty { clear("reader_tamper") } else { raise("reader_tamper") }
            case .lockout?: view.lockedOut = "yes"
            case .duress? where now.timeIntervalSince(record.time) < duressFor: raise("duress")
            // The server's own record: the door went over its event quota (stands a day).
            case nil where record.type == SiteRecordType.eventQuotaExceeded.rawValue && now.timeIntervalSince(record.time) < 86_400: raise("event_quota")
            case .attempt?:
                view.lastDecision = fields["decision"] as? String
                view.lastUser = fields["user"] as? String
                if view.lastDecision == Decision.granted.rawValue { view.lockedOut = "no" }
            default: break
            }
        }
        view.alerts = raised
        view.raisedAt = raisedAt.filter { raised.contains($0.key) }
        if now.timeIntervalSince(view.lastSeen) > silentAfter {
            view.alerts.append("silent")
            view.raisedAt["silent"] = view.lastSeen.addingTimeInterval(silentAfter)
        }
        return view
    }
}
