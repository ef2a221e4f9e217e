import ArgumentParser
import Foundation
import KioskPadAccess
import KioskPadCommandLine
import KioskPadCore
import KioskPadStorage
import SiteCore

/// `kioskpad verifier holiday`: the site's calendar of days on which users' schedules do
/// not apply.
struct VerifierHolidayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "holiday",
        abstract: "Add, list and remove holidays: days (or parts of days) on which users' schedules do not apply.",
        discussion: """
            On a holiday a user with a schedule is refused (reason `holiday`), or, with --schedule, that \
            schedule decides in place of theirs. Users without a schedule are not affected.
            """,
        subcommands: [SetHoliday.self, List.self, Remove.self])

    /// `holiday set DATE`: adds or replaces the holiday on a date.
    struct SetHoliday: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set", abstract: "Add or replace the holiday on a date, e.g. 2026-12-25 --label \"Christmas Day\".")
        @Argument(help: "The date, YYYY-MM-DD, in the site's time zone.") var date: String
        @Option(help: "The part of the day, HH:MM-HH:MM (default: the whole day), e.g. 12:00-24:00.") var hours: String?
        @Option(help: "A schedule that applies in place of users' own that day (default: none, scheduled users are refused).")
        var schedule: String?
        @Option(help: "What the holiday is called (up to 64 characters).") var label = ""
        @OptionGroup var target: VerifierDatabaseTarget

        func holiday() throws -> Holiday {
            do {
                return try Holiday(day: date, hours: hours, schedule: schedule, label: label)
            } catch let error as AccessRule.RuleError {
                throw ValidationError(error.description)
            }
        }

        func validate() throws { _ = try holiday() }

        func run() async throws {
            let holiday = try holiday()
            try await target.doorRules { try await $0.setHoliday(holiday) }
            writeLine("holiday \(holiday.line) set")
        }
    }

    /// `holiday list`: every holiday, by date.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the holidays by date: their hours, schedule and label.")
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let site = try await target.administer { try await $0.siteRules() }
            for holiday in site.holidays { writeLine(holiday.line) }
        }
    }

    /// `holiday remove DATE`.
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove the holiday on a date.")
        @Argument(help: "The date, YYYY-MM-DD.") var date: String
        @OptionGroup var target: VerifierDatabaseTarget

        func validate() throws { _ = try day() }

        func day() throws -> SiteDate {
            do {
                return try Holiday.date(date)
            } catch let error as AccessRule.RuleError {
                throw ValidationError(error.description)
            }
        }

        func run() async throws {
            let day = try day()
            try await target.doorRules { try await $0.removeHoliday(day: day) }
            writeLine("holiday \(day) removed")
        }
    }
}

/// `kioskpad verifier mode`: lockdown and release, for the site or one door.
struct VerifierModeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mode",
        abstract: "Put the site or one door in lockdown (only responders enter) or release (held unlocked), or back to normal.",
        discussion: """
            A door's own mode, when set, is the one it follows; `mode clear --door ID` makes it follow the \
            site's again. Doors learn a change at their next replica sync. Release here is a decision of \
            the site; a fire alarm's hard-wired release stays the installer's job.
            """,
        subcommands: [SetMode.self, Clear.self, Show.self, OfflineCheck.self])

    /// `mode set normal|lockdown|release [--door ID]`.
    struct SetMode: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set", abstract: "Set the site's mode, or one door's with --door.")
        @Argument(help: "normal, lockdown or release.") var mode: String
        @Option(help: "A door (terminal_id); default: the whole site.") var door: String?
        @OptionGroup var target: VerifierDatabaseTarget

        func validate() throws {
            guard DoorMode(rawValue: mode) != nil else { throw ValidationError("'\(mode)' is not a mode; valid: normal, lockdown, release") }
        }

        func run() async throws {
            try await VerifierModeCommand.set(DoorMode(rawValue: mode), door: door, target: target)
        }
    }

    /// `mode clear --door ID`: the door follows the site's mode again.
    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Clear a door's own mode: it follows the site's again.")
        @Option(help: "The door (terminal_id).") var door: String
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            try await VerifierModeCommand.set(nil, door: door, target: target)
        }
    }

    /// `mode show`: the site's mode and each door's own, with who set them.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the site's mode and every door's own, with who set each and when.")
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let site = try await target.administer { try await $0.siteRules() }
            let modes = site.modes
            writeLine("site " + VerifierModeCommand.describe(modes.site))
            writeLine("offline check " + (site.modeCheck.map { "\($0) s" } ?? "off"))
            for (door, setting) in modes.doors.sorted(by: { $0.key < $1.key }) { writeLine("door \(door) " + VerifierModeCommand.describe(setting)) }
        }
    }

    /// `mode offline-check SECONDS|off`.
    struct OfflineCheck: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "offline-check",
            abstract: "How long a door may decide offline since its last sync, so a lockdown set while it was away stops it (off: no bound).",
            discussion: "A door deciding offline refuses once its last sync is older than this; max_age_h still applies. Doors learn it at their next sync.")
        @Argument(help: "Seconds (10 to 604800), or off.") var seconds: String
        @OptionGroup var target: VerifierDatabaseTarget

        func validate() throws {
            guard seconds == "off" || (Int(seconds).map { (10...604_800).contains($0) } ?? false) else {
                throw ValidationError("offline-check \(seconds): give 10 to 604800 seconds, or off")
            }
        }

        func run() async throws {
            let value = Int(seconds)
            try await target.doorRules { try await $0.setModeCheck(seconds: value) }
            writeLine(value.map { "doors decide offline only within \($0) s of a sync" } ?? "offline check off")
        }
    }

    static func describe(_ setting: DoorModes.Setting?) -> String {
        guard let setting else { return "normal" }
        return "\(setting.mode.rawValue) (set by \(setting.setBy) at \(UTCTimestamp.rfc3339(setting.setAt)))"
    }

    /// Sets the mode as the command line's user (who set it is kept with the mode) and audits it.
    static func set(_ mode: DoorMode?, door: String?, target: VerifierDatabaseTarget) async throws {
        let notes = try await target.withStore { opened in
            try await VerifierUserCommand.applying(opened) {
                try await ModeChanges(administration: opened.administration, changes: AdministratorChanges(store: opened.store, by: .commandLine()))
                    .set(SiteCore.SetMode(mode, door: door), at: Date()).notes
            }
        }
        VerifierDatabaseTarget.warn(notes)
        writeLine("\(door.map { "door \($0)" } ?? "site") \(mode.map { "set to \($0.rawValue)" } ?? "follows the site's mode")")
    }
}
