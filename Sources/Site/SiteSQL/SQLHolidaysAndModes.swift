import Foundation
import KioskPadAccess
import KioskPadCore
import KioskPadStorage
import SQLKit
import SiteCore

/// The site's holidays (`kioskpad_holidays`, one row per date) and doors' modes
/// (`kioskpad_door_modes`: `*` for the site, else a `terminal_id`), inside one transaction.
extension SQLSiteRulesTransaction {
    func holidays() async throws -> [Holiday] {
        try await sql.raw("SELECT day, rule, label FROM kioskpad_holidays ORDER BY day").all().map { row in
            let day = try row.text("day")
            do {
                return try Holiday(day: day, words: try row.text("rule").split(separator: " "), label: try row.text("label"))
            } catch {
                throw SiteStoreFailure("database: the holiday \(day) cannot be read (\(error))")
            }
        }
    }

    func modes() async throws -> DoorModes {
        var modes = DoorModes()
        for row in try await sql.raw("SELECT scope, mode, set_by, set_at FROM kioskpad_door_modes").all() {
            let scope = try row.text("scope")
            guard let mode = DoorMode(rawValue: try row.text("mode")) else {
                throw SiteStoreFailure("database: the mode of \(scope) is not normal, lockdown or release")
            }
            let setting = DoorModes.Setting(mode: mode, setBy: try row.text("set_by"), setAt: Date(timeIntervalSince1970: try row.double("set_at")))
            if scope == DoorModes.siteScope { modes.site = setting } else { modes.doors[scope] = setting }
        }
        return modes
    }

    func writeHoliday(day: SiteDate, holiday: Holiday?) async throws {
        guard let holiday else {
            try await sql.raw("DELETE FROM kioskpad_holidays WHERE day = \(bind: day.description)").run()
            return
        }
        try await sql.raw(
            """
            INSERT INTO kioskpad_holidays (day, rule, schedule, label) VALUES (\(bind: day.description), \(bind: holiday.rule), \(bind: holiday.schedule), \(bind: holiday.label))
            ON CONFLICT (day) DO UPDATE SET rule = excluded.rule, schedule = excluded.schedule, label = excluded.label
            """
        ).run()
    }

    func writeMode(scope: String, setting: DoorModes.Setting?) async throws {
        guard let setting else {
            try await sql.raw("DELETE FROM kioskpad_door_modes WHERE scope = \(bind: scope)").run()
            return
        }
        try await sql.raw(
            """
            INSERT INTO kioskpad_door_modes (scope, mode, set_by, set_at) VALUES (\(bind: scope), \(bind: setting.mode.rawValue), \(bind: setting.setBy), \(bind: setting.setAt.timeIntervalSince1970))
            ON CONFLICT (scope) DO UPDATE SET mode = excluded.mode, set_by = excluded.set_by, set_at = excluded.set_at
            """
        ).run()
    }

    func unlockSchedules() async throws -> [String: DoorUnlockSchedule] {
        try await doorRules("kioskpad_door_unlock", what: "unlock schedule", DoorUnlockSchedule.init(rule:))
    }

    func writeUnlock(door: String, unlock: DoorUnlockSchedule?) async throws {
        try await writeDoorRule("kioskpad_door_unlock", door: door, rule: unlock.map { ($0.rule, $0.schedule) })
    }

    /// A per-door rule table (`terminal_id`, `rule`, `schedule`: unlock schedules, card and
    /// PIN), each row's rule text read by `parse`; a row it cannot read names its door.
    func doorRules<Rule>(_ table: String, what: String, _ parse: (String) -> Rule?) async throws -> [String: Rule] {
        var rules: [String: Rule] = [:]
        for row in try await sql.raw("SELECT terminal_id, rule FROM \(unsafeRaw: table)").all() {
            let door = try row.text("terminal_id")
            guard let rule = parse(try row.text("rule")) else { throw SiteStoreFailure("database: the \(what) of \(door) cannot be read") }
            rules[door] = rule
        }
        return rules
    }

    /// Stores `door`'s row in a per-door rule table (its rule text and the schedule it names),
    /// or deletes it for nil.
    func writeDoorRule(_ table: String, door: String, rule: (text: String, schedule: String?)?) async throws {
        guard let rule else {
            try await sql.raw("DELETE FROM \(unsafeRaw: table) WHERE terminal_id = \(bind: door)").run()
            return
        }
        try await sql.raw(
            """
            INSERT INTO \(unsafeRaw: table) (terminal_id, rule, schedule) VALUES (\(bind: door), \(bind: rule.text), \(bind: rule.schedule))
            ON CONFLICT (terminal_id) DO UPDATE SET rule = excluded.rule, schedule = excluded.schedule
            """
        ).run()
    }

    func writeModeCheck(seconds: Int?) async throws {
        guard let seconds else {
            try await sql.raw("DELETE FROM kioskpad_site WHERE key = 'mode_check_s'").run()
            return
        }
        try await sql.raw(
            "INSERT INTO kioskpad_site (key, value) VALUES ('mode_check_s', \(bind: String(seconds))) ON CONFLICT (key) DO UPDATE SET value = excluded.value"
        ).run()
    }

    /// The holidays on the UTC dates either side of `instant` (the site's local date is one
    /// of them), with the spec of the schedule each names: what one decision needs.
    func holidays(near instant: Date) async throws -> [UserAccess.HolidayRow] {
        let days = (-1...1).map { UTCTimestamp.rfc3339(instant.addingTimeInterval(Double($0) * 86_400)).prefix(10) }.map(String.init)
        return try await sql.raw(
            """
            SELECT h.day, h.rule, s.spec FROM kioskpad_holidays h LEFT JOIN kioskpad_schedules s ON s.name = h.schedule
            WHERE h.day IN (\(bind: days[0]), \(bind: days[1]), \(bind: days[2]))
            """
        ).all().map { UserAccess.HolidayRow(day: try $0.text("day"), rule: try $0.text("rule"), scheduleSpec: try $0.optionalText("spec")) }
    }
}
