import ArgumentParser
import Foundation
import KioskPadAccess
import KioskPadCommandLine
import KioskPadCore
import SiteCore

/// `kioskpad verifier unlock`: doors held unlocked in opening hours, perhaps from the first
/// staff entry of the day.
struct VerifierUnlockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock",
        abstract: "Hold a door unlocked during a schedule's windows (opening hours), with --first-in only after a staff user entered that day.",
        discussion: """
            The door learns it at its next replica sync (verifier.offline.mode: fallback) and holds its relay in \
            the windows, by its trusted clock. A lockdown or the site's release wins over it; on a holiday the \
            holiday's schedule decides. Mark staff with `kioskpad verifier user set NAME --staff yes`.
            """,
        subcommands: [SetUnlock.self, List.self, Remove.self])

    /// `unlock set DOOR SCHEDULE [--first-in]`.
    struct SetUnlock: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set", abstract: "Give a door an unlock schedule.")
        @Argument(help: "The door (terminal_id).") var door: String
        @Argument(help: "A schedule's name (`kioskpad verifier schedule set`).") var schedule: String
        @Flag(help: "Only after the first grant of a staff user that day (first person in).") var firstIn = false
        @OptionGroup var target: VerifierDatabaseTarget

        func validate() throws {
            guard Identifier.isValid(door) else { throw ValidationError("door '\(door)' is not a terminal_id (1-64 of letters, digits, '.', '_' or '-')") }
            guard Identifier.isValid(schedule), schedule != "always" else {
                throw ValidationError("schedule '\(schedule)' is not a schedule name (1-64 of letters, digits, '.', '_' or '-')")
            }
        }

        func run() async throws {
            let unlock = DoorUnlockSchedule(schedule: schedule, firstIn: firstIn)
            VerifierDatabaseTarget.warn(try await target.doorRules { try await $0.setUnlock(door: door, unlock) })
            writeLine("door \(door) unlocks in schedule \(schedule)" + (firstIn ? " after the first staff entry of the day" : ""))
        }
    }

    /// `unlock list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the doors with an unlock schedule.")
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let site = try await target.administer { try await $0.siteRules() }
            for (door, unlock) in site.unlockSchedules.sorted(by: { $0.key < $1.key }) { writeLine("\(door) \(unlock.rule)") }
        }
    }

    /// `unlock remove DOOR`.
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a door's unlock schedule.")
        @Argument(help: "The door (terminal_id).") var door: String
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            _ = try await target.doorRules { try await $0.setUnlock(door: door, nil) }
            writeLine("door \(door): unlock schedule removed")
        }
    }
}
