import ArgumentParser
import Foundation
import KioskPadAccess
import KioskPadCommandLine
import SiteCore

/// `kioskpad verifier settings set|unset|show`: the settings the site gives its adopted doors.
struct VerifierSettingsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings",
        abstract: "The settings this site gives its adopted doors (entry, lockout, display texts, door times); each door's file wins where both speak.",
        discussion: """
            Keys are the door config's own (entry.timeout_s, display.texts.enter_pin, door.unlock_s, ...). Without --door, the \
            site's settings for every adopted door; with --door, that door's own on top. A door picks a change up at its next \
            check-in, checks it with its own config checker and runs it, or refuses it and keeps what it runs (`settings show` \
            says which).
            """,
        subcommands: [Set.self, Unset.self, Show.self])

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set KEY=VALUE ... for every adopted door, or for --door ID.")
        @Argument(help: "KEY=VALUE, e.g. entry.timeout_s=15 display.texts.enter_pin='PIN please'") var assignments: [String]
        @Option(help: "One door's own settings (its terminal_id); without it, the site's.") var door: String?
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let version = try await VerifierSettingsCommand.change(target, door: door, set: assignments, remove: [])
            writeLine("settings version \(version): \(door.map { "door \($0)" } ?? "every adopted door") picks it up at its next check-in")
        }
    }

    struct Unset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove KEY ... from the site's settings, or from --door ID's own.")
        @Argument(help: "Keys, e.g. entry.timeout_s") var keys: [String]
        @Option(help: "One door's own settings (its terminal_id); without it, the site's.") var door: String?
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let version = try await VerifierSettingsCommand.change(target, door: door, set: [], remove: keys)
            writeLine("settings version \(version)")
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the site's settings, or what --door ID is given, and what each adopted door runs or refused.")
        @Option(help: "One door: the site's settings with its own on top.") var door: String?
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let (version, settings, states) = try await target.administer { administration in
                let states = try await administration.settingsStates()
                if let door {
                    let effective = try await administration.effectiveSettings(door: door)
                    return (effective.version, effective.settings, states)
                }
                let all = try await administration.allSettings()
                return (all.version, all.byScope[DoorSettings.siteScope] ?? DoorSettings(), states)
            }
            writeLine("settings version \(version)\(door.map { " for door \($0)" } ?? " (the site's)")")
            for key in settings.values.keys.sorted() { writeLine("  \(key) = \(settings.values[key]!.shown)") }
            for state in states.values.sorted(by: { $0.terminalID < $1.terminalID }) where door == nil || state.terminalID == door {
                let refused = state.refused.map { "; refused version \($0.version): \($0.reason)" } ?? ""
                writeLine("\(state.terminalID): runs version \(state.running)\(refused)")
            }
        }
    }

    static func change(_ target: VerifierDatabaseTarget, door: String?, set: [String], remove: [String]) async throws -> Int64 {
        try await target.withStore { opened in
            try await VerifierUserCommand.applying(opened) {
                try await DoorSettingsEditing(administration: opened.administration, changes: AdministratorChanges(store: opened.store, by: .commandLine()))
                    .change(door: door, set: set, remove: remove)
            }
        }
    }
}
