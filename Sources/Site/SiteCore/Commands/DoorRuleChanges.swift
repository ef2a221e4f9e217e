import Foundation
import KioskPadAccess
import KioskPadCore

/// A door's unlock schedule and card-and-PIN rule, the site's schedules, time zone, holidays
/// and offline mode check, changed once for every front end: the store's checks (a schedule named must
/// exist; a rule removed must be there), the door named checked against those the site
/// knows (kept with a ``ChangeNote`` when unknown), and each change with its audit record
/// and change-log entry in one transaction (``AdministratorChanges``), under the same audit
/// fields the command line always wrote.
public struct DoorRuleChanges: Sendable {
    let administration: any VerifierAdministration
    let changes: AdministratorChanges

    public init(administration: any VerifierAdministration, changes: AdministratorChanges) {
        self.administration = administration
        self.changes = changes
    }

    /// Holds `door` unlocked in `unlock`'s schedule, or (nil) removes its unlock schedule.
    public func setUnlock(door: String, _ unlock: DoorUnlockSchedule?) async throws -> [ChangeNote] {
        let administration = self.administration
        let fields = [("terminal_id", door), ("schedule", unlock?.schedule ?? "none"), ("first_in", unlock?.firstIn == true ? "yes" : "no")]
        try await changes.apply(.unlockSet, fields) {
            if let unlock { try await administration.setUnlock(door: door, unlock) } else { try await administration.removeUnlock(door: door) }
        }
        return unlock == nil ? [] : try await notes(door)
    }

    /// Makes `door` ask for a card and its PIN by `rule`, or (nil) a card or a PIN alone again.
    public func setCardAndPIN(door: String, _ rule: CardAndPINRule?) async throws -> [ChangeNote] {
        let administration = self.administration
        try await changes.apply(.cardPINSet, [("terminal_id", door), ("schedule", rule.map { $0.schedule ?? "always" } ?? "none")]) {
            if let rule { try await administration.setCardAndPIN(door: door, rule) } else { try await administration.removeCardAndPIN(door: door) }
        }
        return rule == nil ? [] : try await notes(door)
    }

    /// Adds or replaces the holiday on its date.
    public func setHoliday(_ holiday: Holiday) async throws {
        let administration = self.administration
        try await changes.apply(.holidaySet, [("date", holiday.day.description), ("rule", holiday.rule)]) { try await administration.setHoliday(holiday) }
    }

    /// Removes the holiday on `day`; refused when there is none.
    public func removeHoliday(day: SiteDate) async throws {
        let administration = self.administration
        try await changes.apply(.holidayRemove, [("date", day.description)]) { try await administration.removeHoliday(day: day) }
    }

    /// Adds or replaces the schedule `name` (`mon-fri 08:00-18:00; ...`).
    public func setSchedule(name: String, spec: String) async throws {
        let administration = self.administration
        try await changes.apply(.scheduleSet, [("schedule", name), ("spec", spec)]) { try await administration.setSchedule(name: name, spec: spec) }
    }

    /// Removes the schedule `name`; refused while a rule uses it.
    public func removeSchedule(name: String) async throws {
        let administration = self.administration
        try await changes.apply(.scheduleRemove, [("schedule", name)]) { try await administration.removeSchedule(name: name) }
    }

    /// The site's time zone (an IANA name), which schedules and dates are read in.
    public func setTimeZone(_ timeZone: String) async throws {
        let administration = self.administration
        try await changes.apply(.timeZoneSet, [("time_zone", timeZone)]) { try await administration.setTimeZone(timeZone) }
    }

    /// How long a door may decide offline since its last sync (nil: off).
    public func setModeCheck(seconds: Int?) async throws {
        let administration = self.administration
        try await changes.apply(.modeCheckSet, [("seconds", seconds.map(String.init) ?? "off")]) { try await administration.setModeCheck(seconds: seconds) }
    }

    func notes(_ door: String) async throws -> [ChangeNote] {
        try await KnownDoors.notes(naming: [door], store: changes.store, administration: administration)
    }
}
