import ArgumentParser
import Foundation
import KioskPadAccess
import KioskPadCommandLine
import KioskPadCore
import KioskPadStorage
import SiteAssembly
import SiteCore

extension VerifierUserCommand {
    /// `user learn-card NAME --door DOOR`: the next unknown card read at DOOR becomes NAME's.
    struct LearnCard: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "learn-card",
            abstract: "Arm a door for two minutes: the next card read there that matches nobody becomes the user's.",
            discussion: """
                The door shows `Card learned` and stays shut; a card that is someone's already is refused \
                and the arming ends. Waits for the card and says what came of it (--no-wait returns at once; \
                `user learn-card NAME --status` shows it later).
                """)
        @Argument(help: "The user who gets the card.") var name: String
        @Option(help: "The door (terminal_id) whose reader learns the card.") var door: String?
        @Flag(inversion: .prefixedNo, help: "Wait up to two minutes for the card.") var wait = true
        @Flag(help: "Show what the user's doors armed lately came to, and arm nothing.") var status = false
        @OptionGroup var target: VerifierDatabaseTarget

        func validate() throws {
            if !status && door == nil { throw ValidationError("--door is required: the door (terminal_id) whose reader learns the card") }
            if let door, !Identifier.isValid(door) { throw ValidationError("--door '\(door)' must be 1-64 of letters, digits, '.', '_' or '-'") }
        }

        func run() async throws {
            if status {
                let arms = try await target.withStore { opened in
                    try await VerifierUserCommand.applying(opened) { try await opened.administration.cardLearning(user: name) }
                }
                for arm in arms { writeLine("\(arm.door)\tarmed \(UTCTimestamp.rfc3339(arm.armed)) by \(arm.armedBy)\t\(arm.state(at: Date()))") }
                return
            }
            let door = self.door ?? ""
            let arm = try await target.withStore { opened in
                try await VerifierUserCommand.applying(opened) {
                    let changes = AdministratorChanges(store: opened.store, by: .commandLine())
                    let arm = try await CardLearningChanges(administration: opened.administration, changes: changes).arm(door: door, user: name, now: Date())
                    try await VerifierDatabaseTarget.warnOfUnknownDoors([door], opened)
                    return arm
                }
            }
            writeLine("\(door) armed until \(UTCTimestamp.rfc3339(arm.expires)): present the card for \(name) at its reader")
            guard wait else { return }
            // One database opening for the whole wait, read once a second.
            let result = try await target.withStore { opened in
                try await VerifierUserCommand.applying(opened) { () async throws -> String? in
                    while Date() < arm.expires.addingTimeInterval(1) {
                        try await Task.sleep(for: .seconds(1))
                        let now = try await opened.administration.cardLearning(user: name).first { $0.door == door && $0.armed == arm.armed }
                        if let result = now?.result { return result }
                    }
                    return nil
                }
            }
            guard let result else { throw UsageError(description: "\(door): no unknown card was read in two minutes; nothing was added") }
            guard result == CardLearning.learned else { throw UsageError(description: "\(door): \(result)") }
            writeLine("card learned at \(door) for \(name)")
        }
    }

    /// `user unknown-cards`: cards read lately that matched nobody.
    struct UnknownCards: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "unknown-cards",
            abstract: "List the cards read in the last day that matched nobody: id, door, when, digits (never the number).")
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let cards = try await target.withStore { opened in
                try await VerifierUserCommand.applying(opened) {
                    try await opened.administration.unknownCards(since: Date().addingTimeInterval(-CardLearning.unknownKeptSeconds))
                }
            }
            for card in cards { writeLine("\(card.id)\t\(card.door)\t\(UTCTimestamp.rfc3339(card.seen))\t\(card.digits) digits") }
        }
    }

    /// `user claim-card NAME --card ID`: an unknown card becomes the user's.
    struct ClaimCard: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "claim-card", abstract: "Give a user one of the unknown cards (`user unknown-cards`).")
        @Argument(help: "The user who gets the card.") var name: String
        @Option(help: "The unknown card's id.") var card: Int64
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            try await target.withStore { opened in
                try await VerifierUserCommand.applying(opened) {
                    let changes = AdministratorChanges(store: opened.store, by: .commandLine())
                    try await CardLearningChanges(administration: opened.administration, changes: changes).claim(id: card, user: name)
                }
            }
            writeLine("unknown card \(card) is now \(name)'s")
        }
    }
}
