import Foundation
import SiteCore
import Testing

/// A door's state folded from its forwarded records: the contact, keypad, tamper, lockout,
/// last decision, and the alerts still standing.
@Suite("Door view from forwarded records")
struct DoorViewTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// Records in time order, one second apart; `fields` as JSON members after the type.
    func records(_ items: [(type: String, fields: String)]) -> [DoorEvent] {
        items.enumerated().map { index, item in
            let json = "{\"type\":\"\(item.type)\",\"terminal_id\":\"back-door\"\(item.fields.isEmpty ? "" : "," + item.fields)}"
            return DoorEvent(
                id: "r\(index)", terminalID: "back-door", type: item.type, time: start.addingTimeInterval(Double(index)), sequence: index, json: json)
        }
    }

    func view(_ items: [(type: String, fields: String)], at seconds: Double = 60, silentAfter: TimeInterval = 900) -> DoorView? {
        DoorView.fold(terminal: "back-door", newestFirst: records(items).reversed(), now: start.addingTimeInterval(seconds), silentAfter: silentAfter)
    }

    @Test func aDoorHeldOpenRaisesAnAlertThatClosingClears() throws {
        let held = try #require(view([("door_opened", ""), ("held_open", "\"seconds\":30")]))
        #expect(held.door == "held_open" && held.alerts == ["held_open"])
        let closed = try #require(view([("door_opened", ""), ("held_open", "\"seconds\":30"), ("door_closed", "")]))
        #expect(closed.door == "closed" && closed.alerts.isEmpty)
        #expect(closed.lastSeen == start.addingTimeInterval(2))
    }

    @Test func anOSDPReaderOfflineOrTamperedStandsUntilThatReaderIsBack() throws {
        let down = try #require(
            view([
                ("reader_online", "\"reader\":1,\"secure\":true"), ("reader_online", "\"reader\":2,\"secure\":true"),
                ("reader_offline", "\"reader\":1"), ("reader_refused", "\"reader\":2,\"reason\":\"key\""), ("reader_tamper", "\"reader\":2"),
            ]))
        #expect(down.alerts == ["reader_offline", "reader_tamper"] && down.readersDown == [1, 2] && down.readersTampered == [2])
        // Reader 1 back: reader 2 is still refused, so the alert stands.
        let one = try #require(view([("reader_offline", "\"reader\":1"), ("reader_refused", "\"reader\":2"), ("reader_online", "\"reader\":1")]))
        #expect(one.alerts == ["reader_offline"] && one.readersDown == [2])
        let back = try #require(
            view([
                ("reader_offline", "\"reader\":1"), ("reader_tamper", "\"reader\":1"), ("reader_online", "\"reader\":1"),
                ("reader_tamper_cleared", "\"reader\":1"),
            ]))
        #expect(back.alerts.isEmpty)
    }

    @Test func aDoorsModeIsShownAndAFireAlarmReleaseStandsAsAnAlertUntilItEnds() throws {
        let locked = try #require(view([("door_mode", "\"mode\":\"lockdown\",\"source\":\"site\",\"set_by\":\"ops\"")]))
        #expect(locked.mode == "lockdown" && locked.alerts.isEmpty)
        let fire = try #require(
            view([("door_mode", "\"mode\":\"lockdown\",\"source\":\"site\""), ("door_mode", "\"mode\":\"release\",\"source\":\"fire_alarm\"")]))
        #expect(fire.mode == "release" && fire.alerts == ["fire_release"])
        // A heartbeat of a door still released keeps it; one back to normal clears it.
        let still = try #require(
            view([("door_mode", "\"mode\":\"release\",\"source\":\"fire_alarm\""), ("status", "\"mode\":\"release\",\"mode_source\":\"fire_alarm\"")]))
        #expect(still.alerts == ["fire_release"])
        let over = try #require(
            view([("door_mode", "\"mode\":\"release\",\"source\":\"fire_alarm\""), ("door_mode", "\"mode\":\"normal\",\"source\":\"normal\"")]))
        #expect(over.mode == "normal" && over.alerts.isEmpty)
    }

    @Test func tamperKeypadDuressAndSilenceStandUntilCleared() throws {
        let bad = try #require(
            view([
                ("attempt", "\"decision\":\"granted\",\"user\":\"dana\""), ("duress", "\"user\":\"dana\""), ("tamper", ""), ("keypad_failed", ""),
                ("forced_open", ""), ("lockout", ""),
            ]))
        #expect(bad.alerts == ["duress", "tamper", "keypad_failed", "forced_open"])
        #expect(bad.lastDecision == "granted" && bad.lastUser == "dana" && bad.lockedOut == "yes" && bad.keypad == "failed")
        let better = try #require(view([("tamper", ""), ("keypad_failed", ""), ("tamper_cleared", ""), ("keypad_recovered", "")]))
        #expect(better.alerts.isEmpty && better.tamper == "clear" && better.keypad == "ok")
        // A status record says how the terminal is now; a duress a day old no longer stands.
        let status = try #require(
            view(
                [("duress", ""), ("status", "\"door\":\"closed\",\"keypad\":\"ok\",\"tamper\":\"active\",\"locked_out\":\"no\"")], at: 90_000,
                silentAfter: 100_000))
        #expect(status.alerts == ["tamper"] && status.door == "closed")
        let silent = try #require(view([("status", "\"door\":\"closed\"")], at: 1_000))
        #expect(silent.alerts == ["silent"])
        #expect(view([]) == nil)
    }
}
