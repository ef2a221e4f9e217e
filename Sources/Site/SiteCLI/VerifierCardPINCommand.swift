import ArgumentParser
import Foundation
import KioskPadAccess
import KioskPadCommandLine
import KioskPadCore
import SiteCore

/// `kioskpad verifier card-pin`: doors that ask for a card and then its holder's own PIN.
struct VerifierCardPINCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "card-pin",
        abstract: "Make a door ask for a card and then its holder's own PIN, always or in a schedule's windows.",
        discussion: """
            At such a door a card alone, a PIN alone or a code is refused (reason second_factor_required in the \
            audit and the door's journal). After a card the door asks for the PIN in its slots; the card is held \
            until the PIN is submitted or the entry times out. With --schedule, both are asked for in the \
            schedule's windows, all day on a holiday, and whenever the door's clock cannot be trusted. A door \
            deciding offline applies it from its replica.
            """,
        subcommands: [SetRule.self, List.self, Remove.self])

    /// `card-pin set DOOR [--schedule NAME]`.
    struct SetRule: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set", abstract: "Make a door ask for card and PIN.")
        @Argument(help: "The door (terminal_id).") var door: String
        @Option(help: "Only in this schedule's windows (`kioskpad verifier schedule set`); default: always.") var schedule: String?
        @OptionGroup var target: VerifierDatabaseTarget

        func validate() throws {
            guard Identifier.isValid(door) else { throw ValidationError("door '\(door)' is not a terminal_id (1-64 of letters, digits, '.', '_' or '-')") }
            if let schedule, !Identifier.isValid(schedule) {
                throw ValidationError("--schedule \(schedule): a schedule name is 1-64 of letters, digits, '.', '_' or '-' (or always)")
            }
        }

        func run() async throws {
            let rule = CardAndPINRule(schedule: schedule == "always" ? nil : schedule)
            VerifierDatabaseTarget.warn(try await target.doorRules { try await $0.setCardAndPIN(door: door, rule) })
            writeLine("door \(door) asks for card and PIN " + (rule.schedule.map { "in schedule \($0)" } ?? "always"))
        }
    }

    /// `card-pin list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the doors that ask for card and PIN.")
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let site = try await target.administer { try await $0.siteRules() }
            for (door, rule) in site.cardAndPIN.sorted(by: { $0.key < $1.key }) { writeLine("\(door) \(rule.rule)") }
        }
    }

    /// `card-pin remove DOOR`.
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Let a door take a card or a PIN alone again.")
        @Argument(help: "The door (terminal_id).") var door: String
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            _ = try await target.doorRules { try await $0.setCardAndPIN(door: door, nil) }
            writeLine("door \(door) takes a card or a PIN alone")
        }
    }
}
