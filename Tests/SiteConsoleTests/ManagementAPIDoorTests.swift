import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import KioskPadAccess
import SiteCore
import Testing
import VerifierTestSupport

/// `/api/v1/doors`, `/modes`, `/holidays` and `/schedules` on both stores: doors with their
/// live state and alerts, an alert acknowledged, modes set with who set them, the calendar
/// changed; each refused change named, each change audited under the token.
@Suite("Management API: doors, modes and the calendar", .serialized)
struct ManagementAPIDoorTests {
    let api = ManagementAPITests()
    let hooks = ManagementAPIWebhookTests()

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func doorsAreListedWithTheirAlertsAndAnAlertIsAcknowledged(_ kind: StoreUnderTest.Kind) async throws {
        try await ConsoleHarness.withConsole(kind) { harness, client in
            let now = harness.clock.now
            _ = try await harness.under.store.storeEvents([
                DoorEvent(id: "f1", terminalID: "front", type: "forced_open", time: now.addingTimeInterval(-5), sequence: 1, json: "{}"),
                DoorEvent(id: "b1", terminalID: "back", type: "status", time: now.addingTimeInterval(-3_600), sequence: 1, json: "{}"),
            ])
            let doors = try await api.token(harness, "guard", [.doors])
            let reader = try await api.token(harness, "reader", [.read])
            let (listed, list) = try await api.call(client, "/api/v1/doors", token: reader)
            let rows = try #require(list["doors"] as? [[String: Any]])
            let front = try #require(rows.first { $0["name"] as? String == "front" })
            let back = try #require(rows.first { $0["name"] as? String == "back" })
            #expect(listed == 200 && front["online"] as? Bool == true && front["alerting"] as? Bool == true)
            #expect((front["alerts"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["forced_open"])
            #expect(back["online"] as? Bool == false && (back["alerts"] as? [[String: Any]])?.first?["name"] as? String == "silent", "an hour quiet")
            let path = "/api/v1/doors/front/alerts/forced_open/acknowledge"
            #expect(try await api.call(client, path, .post, token: reader).0 == 403)
            let (acked, _) = try await api.call(client, path, .post, token: doors)
            #expect(acked == 200)
            let (_, after) = try await api.call(client, "/api/v1/doors", token: reader)
            let alert = try #require(((after["doors"] as? [[String: Any]])?.first { $0["name"] as? String == "front" }?["alerts"] as? [[String: Any]])?.first)
            #expect(alert["acknowledged_by"] as? String == "token:guard" && alert["acknowledged_at"] is String)
            let (none, why) = try await api.call(client, "/api/v1/doors/front/alerts/tamper/acknowledge", .post, token: doors)
            #expect(none == 409 && (why["error"] as? String)?.contains("no standing tamper alert") == true)
            #expect(try await api.call(client, "/api/v1/doors/side/alerts/tamper/acknowledge", .post, token: doors).0 == 404)
            let (badAlert, said) = try await api.call(client, "/api/v1/doors/front/alerts/opened/acknowledge", .post, token: doors)
            #expect(badAlert == 400 && (said["error"] as? String)?.contains("alert must be one of") == true)
            let records = try await harness.under.administration.auditRecords(last: 5).joined(separator: "\n")
            #expect(records.contains("alert_acknowledge") && records.contains("token:guard"))
        }
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func anAdoptedDoorsSecretIsRotatedAndADoorRetired(_ kind: StoreUnderTest.Kind) async throws {
        try await ConsoleHarness.withConsole(kind) { harness, client in
            let now = harness.clock.now
            let nonce = Data(repeating: 5, count: 16)
            let unpaired = try PairingDoorUnderTest()
            try await harness.under.administration.announceDoor(unpaired.waiting(id: "p1", nonce: nonce, announced: now), now: now)
            try await DoorAdoption(
                pairing: harness.under.administration, changes: AdministratorChanges(store: harness.under.store, by: .commandLine()),
                replicaPublicKey: "ed25519:AAAA"
            ).adopt(code: unpaired.code(nonce: nonce), terminalID: "front-door", now: now)
            _ = try await harness.under.store.storeEvents([DoorEvent(id: "l1", terminalID: "lobby", type: "status", time: now, sequence: 1, json: "{}")])
            let doors = try await api.token(harness, "guard", [.doors])
            let reader = try await api.token(harness, "reader", [.read])
            #expect(try await api.call(client, "/api/v1/doors/front-door/rotate", .post, token: reader).0 == 403)
            let (rotated, standing) = try await api.call(client, "/api/v1/doors/front-door/rotate", .post, token: doors)
            #expect(rotated == 200 && standing["standing"] as? String == "rotating", "\(standing)")
            let (again, why) = try await api.call(client, "/api/v1/doors/front-door/rotate", .post, token: doors)
            #expect(again == 409 && (why["error"] as? String)?.contains("rotation waiting already") == true)
            #expect(try await api.call(client, "/api/v1/doors/lobby/rotate", .post, token: doors).0 == 404, "no secret of its own")
            let (retired, gone) = try await api.call(client, "/api/v1/doors/lobby/retire", .post, token: doors)
            #expect(retired == 200 && gone["standing"] as? String == "retired")
            #expect(try await api.call(client, "/api/v1/doors/nowhere/retire", .post, token: doors).0 == 404)
            #expect(try await api.call(client, "/api/v1/doors/lobby/retire", .post, token: doors).0 == 409)
            let (_, list) = try await api.call(client, "/api/v1/doors", token: reader)
            #expect((list["doors"] as? [[String: Any]])?.contains { $0["name"] as? String == "lobby" } == false, "a retired door leaves the live list")
            let records = try await harness.under.auditRecords().filter { ["door_rotate", "door_retire"].contains($0["action"]) }
            #expect(
                records.map { "\($0["action"]!) \($0["terminal_id"]!) \($0["admin"]!)" } == [
                    "door_rotate front-door token:guard", "door_retire lobby token:guard",
                ])
        }
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func settingsForAdoptedDoorsAreReadAndChanged(_ kind: StoreUnderTest.Kind) async throws {
        try await ConsoleHarness.withConsole(kind) { harness, client in
            _ = try await harness.under.store.storeEvents([
                DoorEvent(id: "l1", terminalID: "lobby", type: "status", time: harness.clock.now, sequence: 1, json: "{}")
            ])
            let doors = try await api.token(harness, "guard", [.doors])
            let reader = try await api.token(harness, "reader", [.read])
            let body = #"{"set": {"entry.timeout_s": 15, "entry.enrolment": true, "display.texts.enter_pin": "PIN please"}}"#
            #expect(try await hooks.send(client, "/api/v1/settings", .patch, body, token: reader).0 == 403)
            let (changed, version) = try await hooks.send(client, "/api/v1/settings", .patch, body, token: doors)
            #expect(changed == 200 && version["version"] as? Int == 1, "\(version)")
            let (own, _) = try await hooks.send(client, "/api/v1/settings", .patch, #"{"door": "lobby", "set": {"door.unlock_s": 8}}"#, token: doors)
            #expect(own == 200)
            let (bad, why) = try await hooks.send(client, "/api/v1/settings", .patch, #"{"set": {"keypad.chip": "gpiochip1"}}"#, token: doors)
            #expect(bad == 400 && (why["error"] as? String)?.contains("is not a setting a site gives its doors") == true)
            let (nowhere, _) = try await hooks.send(client, "/api/v1/settings", .patch, #"{"door": "nowhere", "set": {"entry.timeout_s": 5}}"#, token: doors)
            #expect(nowhere == 404)
            let (read, settings) = try await api.call(client, "/api/v1/settings", token: reader)
            let site = try #require(settings["site"] as? [String: Any])
            #expect(read == 200 && settings["version"] as? Int == 2 && site["entry.timeout_s"] as? Int == 15 && site["entry.enrolment"] as? Bool == true)
            let (removed, _) = try await hooks.send(client, "/api/v1/settings", .patch, #"{"remove": ["entry.enrolment"]}"#, token: doors)
            let left = try await harness.under.administration.settings(scope: DoorSettings.siteScope)
            #expect(removed == 200 && left.values["entry.enrolment"] == nil)
            let records = try await harness.under.auditRecords().filter { $0["action"] == "settings_set" }
            #expect(records.map { "\($0["scope"]!) \($0["admin"]!)" } == ["site token:guard", "lobby token:guard", "site token:guard"])
        }
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func theReplicaKeyIsReadRotatedAndFinished(_ kind: StoreUnderTest.Kind) async throws {
        try await ConsoleHarness.withConsole(kind) { harness, client in
            let doors = try await api.token(harness, "guard", [.doors])
            let reader = try await api.token(harness, "reader", [.read])
            let (read, standing) = try await api.call(client, "/api/v1/replica-key", token: reader)
            let first = try #require(standing["current"] as? String)
            #expect(read == 200 && first.hasPrefix("ed25519:") && standing["next"] is NSNull)
            #expect(try await hooks.send(client, "/api/v1/replica-key/rotate", .post, nil, token: reader).0 == 403)
            let (rotated, rotating) = try await hooks.send(client, "/api/v1/replica-key/rotate", .post, nil, token: doors)
            #expect(rotated == 200 && rotating["current"] as? String == first && (rotating["next"] as? String)?.hasPrefix("ed25519:") == true)
            #expect(try await hooks.send(client, "/api/v1/replica-key/rotate", .post, nil, token: doors).0 == 409, "one rotation at a time")
            let (badForce, why) = try await hooks.send(client, "/api/v1/replica-key/finish", .post, #"{"force": "yes"}"#, token: doors)
            #expect(badForce == 400 && (why["error"] as? String)?.contains("force must be true or false") == true)
            #expect(try await hooks.send(client, "/api/v1/replica-key/finish", .post, #"{"now": true}"#, token: doors).0 == 400)
            let (finished, after) = try await hooks.send(client, "/api/v1/replica-key/finish", .post, nil, token: doors)
            #expect(finished == 200 && after["current"] as? String == rotating["next"] as? String && after["next"] is NSNull, "no adopted door waits")
            #expect(try await hooks.send(client, "/api/v1/replica-key/finish", .post, #"{"force": true}"#, token: doors).0 == 409, "nothing to finish")
            let records = try await harness.under.auditRecords().filter { $0["action"]?.hasPrefix("replica_key") == true }
            #expect(records.map { "\($0["action"]!) \($0["admin"]!)" } == ["replica_key_rotate token:guard", "replica_key_finish token:guard"])
        }
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func modesAreSetWithWhoSetThemAndAnUnknownDoorIsRefused(_ kind: StoreUnderTest.Kind) async throws {
        try await ConsoleHarness.withConsole(kind) { harness, client in
            _ = try await harness.under.store.storeEvents([
                DoorEvent(id: "f1", terminalID: "front", type: "status", time: harness.clock.now, sequence: 1, json: "{}")
            ])
            let doors = try await api.token(harness, "guard", [.doors])
            let (site, modes) = try await hooks.send(client, "/api/v1/modes/site", .put, #"{"mode":"lockdown"}"#, token: doors)
            let setting = try #require(modes["site"] as? [String: Any])
            #expect(site == 200 && setting["mode"] as? String == "lockdown" && setting["set_by"] as? String == "token:guard")
            let (door, both) = try await hooks.send(client, "/api/v1/modes/doors/front", .put, #"{"mode":"release"}"#, token: doors)
            #expect(door == 200 && (both["doors"] as? [[String: Any]])?.first?["mode"] as? String == "release")
            let (_, listed) = try await api.call(client, "/api/v1/doors", token: doors)
            #expect((listed["doors"] as? [[String: Any]])?.first?["mode_set"] as? String == "release", "its own mode over the site's")
            let (follows, _) = try await hooks.send(client, "/api/v1/modes/doors/front", .put, #"{"mode":"site"}"#, token: doors)
            let (again, why) = try await hooks.send(client, "/api/v1/modes/doors/front", .put, #"{"mode":"site"}"#, token: doors)
            #expect(follows == 200 && again == 409 && (why["error"] as? String)?.contains("follows the site") == true)
            let (unknown, said) = try await hooks.send(client, "/api/v1/modes/doors/side", .put, #"{"mode":"lockdown"}"#, token: doors)
            #expect(unknown == 404 && (said["error"] as? String)?.contains("no door side") == true)
            let (siteFollows, siteWhy) = try await hooks.send(client, "/api/v1/modes/site", .put, #"{"mode":"site"}"#, token: doors)
            #expect(siteFollows == 400 && (siteWhy["error"] as? String)?.contains("mode must be normal, lockdown or release") == true)
            #expect(try await harness.under.administration.siteRules().modes.doors.isEmpty, "nothing refused was stored")
        }
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func holidaysAndSchedulesAreSetAndRemovedByTheirKeys(_ kind: StoreUnderTest.Kind) async throws {
        try await ConsoleHarness.withConsole(kind) { harness, client in
            let doors = try await api.token(harness, "facilities", [.doors])
            let reader = try await api.token(harness, "reader", [.read])
            let (set, schedule) = try await hooks.send(client, "/api/v1/schedules/office", .put, #"{"spec":"mon-fri 08:00-18:00"}"#, token: doors)
            #expect(set == 200 && schedule["spec"] as? String == "mon-fri 08:00-18:00")
            let (bad, why) = try await hooks.send(client, "/api/v1/schedules/late", .put, #"{"spec":"mon-fri 25:00-26:00"}"#, token: doors)
            #expect(bad == 400 && (why["error"] as? String)?.contains("late") == true)
            let (holiday, day) = try await hooks.send(
                client, "/api/v1/holidays/2026-12-24", .put, #"{"hours":"12:00-24:00","schedule":"office","label":"Christmas Eve"}"#, token: doors)
            #expect(holiday == 200 && day["hours"] as? String == "12:00-24:00" && day["schedule"] as? String == "office")
            let (badHours, hoursWhy) = try await hooks.send(client, "/api/v1/holidays/2026-12-25", .put, #"{"hours":"noon"}"#, token: doors)
            #expect(badHours == 400 && (hoursWhy["error"] as? String)?.contains("hours 'noon'") == true, "\(hoursWhy)")
            let (noSchedule, _) = try await hooks.send(client, "/api/v1/holidays/2026-12-25", .put, #"{"schedule":"nights"}"#, token: doors)
            let (badDate, _) = try await hooks.send(client, "/api/v1/holidays/2026-02-30", .put, "{}", token: doors)
            #expect(noSchedule == 400 && badDate == 400)
            let (inUse, used) = try await api.call(client, "/api/v1/schedules/office", .delete, token: doors)
            #expect(inUse == 409 && (used["error"] as? String)?.contains("office") == true, "a holiday still names it")
            let (_, listed) = try await api.call(client, "/api/v1/holidays", token: reader)
            #expect((listed["holidays"] as? [[String: Any]])?.compactMap { $0["date"] as? String } == ["2026-12-24"])
            #expect(try await api.call(client, "/api/v1/holidays/2026-12-24", .delete, token: reader).0 == 403)
            #expect(try await api.call(client, "/api/v1/holidays/2026-12-24", .delete, token: doors).0 == 200)
            #expect(try await api.call(client, "/api/v1/holidays/2026-12-24", .delete, token: doors).0 == 404)
            #expect(try await api.call(client, "/api/v1/schedules/office", .delete, token: doors).0 == 200)
            let (_, schedules) = try await api.call(client, "/api/v1/schedules", token: reader)
            #expect((schedules["schedules"] as? [Any])?.isEmpty == true)
            let records = try await harness.under.administration.auditRecords(last: 10).joined(separator: "\n")
            #expect(
                records.contains("schedule_set") && records.contains("holiday_set") && records.contains("holiday_remove")
                    && records.contains("token:facilities"))
        }
    }
}
