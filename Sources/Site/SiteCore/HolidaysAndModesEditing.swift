import Foundation
import KioskPadAccess
import KioskPadCore

extension SiteRulesEditing {
    /// Adds or replaces the holiday on its date; refused when it names a schedule that does not exist.
    public func setHoliday(_ holiday: Holiday) async throws {
        let location = self.location
        try await editSite { transaction in
            if let schedule = holiday.schedule, try await transaction.readSite().schedules[schedule] == nil {
                throw UserEditError(
                    description:
                        "holiday \(holiday.day): schedule=\(schedule): no such schedule in \(location) (add it with `kioskpad verifier schedule set \(schedule) SPEC`)"
                )
            }
            try await transaction.writeHoliday(day: holiday.day, holiday: holiday)
        }
    }

    /// Removes the holiday on `day`; refused when there is none.
    public func removeHoliday(day: SiteDate) async throws {
        let location = self.location
        try await editSite { transaction in
            guard try await transaction.readSite().holidays.contains(where: { $0.day == day }) else {
                throw UserEditError(description: "no holiday on \(day) in \(location)")
            }
            try await transaction.writeHoliday(day: day, holiday: nil)
        }
    }

    /// Holds `door` unlocked in the windows of `unlock.schedule` (with `firstIn`, from the
    /// first staff entry of the day); refused for a schedule that does not exist.
    public func setUnlock(door: String, _ unlock: DoorUnlockSchedule) async throws {
        guard Identifier.isValid(door) else {
            throw UserEditError(description: "door '\(door)' is not a terminal_id (1-64 of letters, digits, '.', '_' or '-')")
        }
        let location = self.location
        try await editSite { transaction in
            guard try await transaction.readSite().schedules[unlock.schedule] != nil else {
                throw UserEditError(
                    description:
                        "unlock schedule \(unlock.schedule): no such schedule in \(location) (add it with `kioskpad verifier schedule set \(unlock.schedule) SPEC`)"
                )
            }
            try await transaction.writeUnlock(door: door, unlock: unlock)
        }
    }

    /// Removes `door`'s unlock schedule; refused when it has none.
    public func removeUnlock(door: String) async throws {
        let location = self.location
        try await editSite { transaction in
            guard try await transaction.readSite().unlockSchedules[door] != nil else {
                throw UserEditError(description: "door '\(door)' has no unlock schedule in \(location)")
            }
            try await transaction.writeUnlock(door: door, unlock: nil)
        }
    }

    /// Makes `door` ask for a card and then its holder's PIN (always, or in the windows of
    /// `rule.schedule`); refused for a schedule that does not exist.
    public func setCardAndPIN(door: String, _ rule: CardAndPINRule) async throws {
        guard Identifier.isValid(door) else {
            throw UserEditError(description: "door '\(door)' is not a terminal_id (1-64 of letters, digits, '.', '_' or '-')")
        }
        let location = self.location
        try await editSite { transaction in
            if let schedule = rule.schedule, try await transaction.readSite().schedules[schedule] == nil {
                throw UserEditError(
                    description:
                        "card-pin --schedule \(schedule): no such schedule in \(location) (add it with `kioskpad verifier schedule set \(schedule) SPEC`, or leave --schedule out for always)"
                )
            }
            try await transaction.writeCardAndPIN(door: door, rule: rule)
        }
    }

    /// Makes `door` take a card or a PIN alone again; refused when it asks for both nowhere.
    public func removeCardAndPIN(door: String) async throws {
        let location = self.location
        try await editSite { transaction in
            guard try await transaction.readSite().cardAndPIN[door] != nil else {
                throw UserEditError(description: "door '\(door)' does not ask for card and PIN in \(location)")
            }
            try await transaction.writeCardAndPIN(door: door, rule: nil)
        }
    }

    /// How long a door may decide offline since its last sync, 10 s to 7 days (nil: as long
    /// as its `max_age_h` allows): so a lockdown set while it was away stops it deciding.
    public func setModeCheck(seconds: Int?) async throws {
        if let seconds, !(10...604_800).contains(seconds) {
            throw UserEditError(description: "offline-check \(seconds): give 10 to 604800 seconds, or off")
        }
        try await editSite { try await $0.writeModeCheck(seconds: seconds) }
    }

    /// Sets the site's mode (`door` nil) or one door's own; `mode` nil clears a door's own
    /// (it follows the site's again; refused when it has none), and the site's `normal` clears
    /// the site's. Returns the site's modes now.
    @discardableResult
    public func setMode(_ mode: DoorMode?, door: String?, by who: String, at instant: Date) async throws -> DoorModes {
        if let door, !Identifier.isValid(door) {
            throw UserEditError(description: "--door \(door): a door id is a terminal_id (1-64 of letters, digits, '.', '_' or '-')")
        }
        if door == nil && mode == nil { throw UserEditError(description: "the site's mode is normal, lockdown or release") }
        let scope = door ?? DoorModes.siteScope
        let setting = mode.flatMap { mode in door == nil && mode == .normal ? nil : DoorModes.Setting(mode: mode, setBy: who, setAt: instant) }
        let location = self.location
        return try await editSite { transaction in
            if let door, mode == nil, try await transaction.readSite().modes.doors[door] == nil {
                throw UserEditError(description: "door '\(door)' has no mode of its own in \(location); it follows the site's mode already")
            }
            try await transaction.writeMode(scope: scope, setting: setting)
            return try await transaction.readSite().modes
        }
    }
}
