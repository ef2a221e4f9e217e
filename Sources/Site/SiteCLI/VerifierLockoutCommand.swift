import ArgumentParser
import Foundation
import KioskPadAccess
import KioskPadCommandLine
import KioskPadCore

/// `kioskpad verifier lockout`: the per-terminal lockouts, which survive a restart.
struct VerifierLockoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lockout",
        abstract: "List terminals' lockouts and clear one (a restart no longer clears them).",
        subcommands: [List.self, Clear.self])

    /// `lockout list`: every terminal with denials or a lockout.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List each terminal's lockout: locked until when, recent denials, lockouts in a row.")
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let settings = try target.settings()
            let lockouts = try await target.withStore(settings) { opened in
                try await VerifierUserCommand.applying(opened) { try await opened.administration.lockouts(policy: settings.lockout) }
            }
            let now = Duration.seconds(Date().timeIntervalSince1970)
            let formatter = ISO8601DateFormatter()
            for lockout in lockouts {
                let tracker = lockout.tracker
                let state =
                    tracker.isLocked(at: now)
                    ? "locked until \(formatter.string(from: Date(timeIntervalSince1970: tracker.lockedUntil?.timeInterval ?? 0)))"
                    : "not locked"
                writeLine(
                    "\(lockout.terminal) \(state), \(tracker.recentFailures) recent denial\(tracker.recentFailures == 1 ? "" : "s"), streak \(tracker.streak)")
            }
        }
    }

    /// `lockout clear --door ID`: forgets one terminal's lockout and denials.
    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Clear one terminal's lockout and its recent denials.")
        @OptionGroup var target: VerifierDatabaseTarget
        @Option(help: "The terminal_id of the door.") var door: String

        func run() async throws {
            try await target.doorKeys { try await $0.clearLockout(terminalID: door) }
            writeLine("lockout of '\(door)' cleared")
        }
    }
}
