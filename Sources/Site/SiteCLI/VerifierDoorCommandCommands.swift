import ArgumentParser
import Foundation
import KioskPadAccess
import KioskPadCommandLine
import KioskPadCore
import KioskPadStorage
import SiteCore

extension VerifierTerminalCommand {
    /// `terminal unlock ID --reason TEXT [--seconds N]`: a remote unlock, as the console's
    /// **Unlock** and `POST /api/v1/doors/{id}/unlock` send it.
    struct RemoteUnlock: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "unlock",
            abstract: "Open door ID now from here: a remote unlock, sent on the door's push channel.",
            discussion: """
                The door acts on it only if it holds the push channel (verifier.offline with push) and takes it within \
                30 seconds; it opens for its own unlock time, or --seconds (at most its max_unlock_s). Refused while \
                the door is in lockdown. `terminal commands ID` shows when the door took it and what it did.
                """)
        @Argument(help: "The door's terminal_id.") var id: String
        @Option(help: "Why (kept in the audit log).") var reason: String
        @Option(help: "How long to hold it open, 1 to \(DoorCommand.maxSeconds) s (default: the door's own unlock time).") var seconds: Int?
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let stored = try await VerifierTerminalCommand.send(target, RemoteDoorCommand(door: id, action: .unlock, seconds: seconds, reason: reason))
            writeLine("\(id): unlock \(stored.id) sent; the door takes it on its push channel within 30 s, or never")
        }
    }

    /// `terminal lock ID --reason TEXT`: a remote lock (ends an unlock now).
    struct RemoteLock: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "lock",
            abstract: "Lock door ID now from here: ends its unlock (a grant's or a remote one); a release is not ended.")
        @Argument(help: "The door's terminal_id.") var id: String
        @Option(help: "Why (kept in the audit log).") var reason: String
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let stored = try await VerifierTerminalCommand.send(target, RemoteDoorCommand(door: id, action: .lock, reason: reason))
            writeLine("\(id): lock \(stored.id) sent; the door takes it on its push channel within 30 s, or never")
        }
    }

    /// `terminal commands ID`: the door's newest remote commands.
    struct Commands: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List door ID's newest remote commands: when it took each and what it did.")
        @Argument(help: "The door's terminal_id.") var id: String
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let commands = try await target.withStore { try await $0.administration.recentDoorCommands(terminal: id, limit: 20) }
            if commands.isEmpty { writeLine("\(id): no remote command") }
            for command in commands {
                let taken = command.deliveredAt.map { "taken " + UTCTimestamp.rfc3339($0) } ?? "not taken"
                writeLine(
                    "\(command.id)  \(command.action.rawValue)\(command.seconds.map { " \($0)s" } ?? "")  by \(command.admin)  "
                        + "\(UTCTimestamp.rfc3339(command.issuedAt))  \(taken)  \(command.result ?? "-")  \(command.reason)")
            }
        }
    }

    /// A remote command through ``RemoteDoorCommands``, by the command line's user. A server
    /// on the same database finds it at its next read of the push channel (250 ms).
    static func send(_ target: VerifierDatabaseTarget, _ command: RemoteDoorCommand) async throws -> StoredDoorCommand {
        try await target.withStore { opened in
            try await VerifierUserCommand.applying(opened) {
                try await RemoteDoorCommands(administration: opened.administration, changes: AdministratorChanges(store: opened.store, by: .commandLine()))
                    .issue(command, at: Date())
            }
        }
    }
}
