import ArgumentParser
import DoorAssembly
import DoorConfig
import DoorOfflineReplica
import DoorServices
import Foundation
import KioskPadAccess
import KioskPadCommandLine
import KioskPadConfig
import KioskPadCore
import KioskPadStorage
import Logging

/// `kioskpad credentials`: the door's credential replica (`verifier.offline`).
struct CredentialsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "credentials", abstract: "The door's signed credential replica, for deciding when the verifier cannot answer.",
        subcommands: [CredentialsSyncCommand.self, CredentialsShowCommand.self])

    /// The keeper and sync loop the config describes; an error names the key when the
    /// config has no `verifier.offline.mode: fallback`.
    static func parts(config: String) throws -> ReplicaParts {
        let configuration = try ConfigLoader.load(path: config)
        let directory = configuration.daemon.stateDirectory ?? DaemonConfiguration.defaultStateDirectory
        guard let parts = try TerminalAssembly.replicaParts(configuration, stateDirectory: directory, logger: Logger(label: "kioskpad.replica")) else {
            throw KeyedError(key: "verifier.offline.mode", message: "\(config) keeps no replica", fix: "set verifier.offline.mode: fallback with kind: http")
        }
        return parts
    }
}

/// `kioskpad credentials sync`: one fetch now.
struct CredentialsSyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Fetch the door's replica from the verifier once; print its version and how many users it holds.",
        discussion: "Exit 1 when the verifier cannot be reached or sends something the pinned public key did not sign; the replica held is kept then.")

    @Option(help: "Config file (YAML) with verifier.offline.mode: fallback.")
    var config: String

    func run() async throws {
        let parts = try CredentialsCommand.parts(config: config)
        do {
            let summary = try await parts.sync.syncOnce()
            await parts.sync.client.shutdown()
            let delta = summary.deltaUsers.map { " (a delta of \($0) user\($0 == 1 ? "" : "s"))" } ?? ""
            writeLine(
                "replica v\(summary.version): \(summary.users) user\(summary.users == 1 ? "" : "s")\(delta)\(summary.changed ? "" : " (unchanged, confirmed)") in \(parts.keeper.settings.path)"
            )
        } catch {
            await parts.sync.client.shutdown()
            throw RuntimeFailure(description: "credentials sync: \(error)")
        }
    }
}

/// `kioskpad credentials show`: what the replica holds, never a hash.
struct CredentialsShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract:
            "Print what the door's replica holds (users, what each may open with, their rules; no hashes), its age, and whether the door may decide from it now."
    )

    @Option(help: "Config file (YAML) with verifier.offline.mode: fallback.")
    var config: String

    func run() async throws {
        let parts = try CredentialsCommand.parts(config: config)
        await parts.sync.client.shutdown()
        let keeper = parts.keeper
        guard let held = keeper.held else {
            writeLine("no replica: \(keeper.problem() ?? "none held")")
            throw ExitCode(1)
        }
        let replica = held.replica
        writeLine("replica v\(held.version) for \(replica.terminalID) in \(keeper.settings.path)")
        writeLine(
            "issued \(CredentialsShowCommand.stamp(replica.issuedAt)), last confirmed \(CredentialsShowCommand.stamp(held.confirmedAt))"
                + (keeper.age().map { " (\(ReplicaKeeper.describe($0)) ago)" } ?? " (age unknown: no trusted time)"))
        writeLine("time zone \(replica.timeZone ?? "(the door's own)"); schedules: \(replica.schedules.keys.sorted().joined(separator: ", ").ifEmpty("none"))")
        writeLine("holidays: \(replica.holidays.keys.sorted().joined(separator: ", ").ifEmpty("none"))")
        writeLine("mode: " + (replica.mode.map { "\($0.mode.rawValue) (set by \($0.setBy) at \(CredentialsShowCommand.stamp($0.setAt)))" } ?? "normal"))
        writeLine("offline check: " + (replica.modeCheck.map { "\($0) s since the last sync" } ?? "off"))
        writeLine("unlock schedule: " + (replica.unlock?.rule ?? "none"))
        writeLine("card and PIN: " + (replica.cardAndPIN?.rule ?? "no"))
        writeLine("requires: " + replica.requires.map(\.rawValue).joined(separator: ", ").ifEmpty("none"))
        var kinds: [String: [String: Int]] = [:]
        for entry in replica.entries { kinds[entry.user, default: [:]][entry.kind, default: 0] += 1 }
        writeLine("\(kinds.count) user\(kinds.count == 1 ? "" : "s"):")
        for user in kinds.keys.sorted() {
            let has = ["pin", "duress", "card"].compactMap { kind -> String? in
                guard let count = kinds[user]?[kind] else { return nil }
                return kind == "card" ? "cards=\(count)" : kind
            }
            writeLine("  \(user) \(has.joined(separator: ",")) \(replica.rules[user] ?? "every door, always")")
        }
        if let problem = keeper.problem() {
            writeLine("offline decisions: refused now: \(problem)")
        } else {
            writeLine("offline decisions: allowed (max age \(keeper.settings.maxAge.wholeSeconds / 3600) h)")
        }
    }

    static func stamp(_ date: Date) -> String {
        UTCTimestamp.rfc3339(date)
    }
}

extension String {
    fileprivate func ifEmpty(_ fallback: String) -> String { isEmpty ? fallback : self }
}
