import ArgumentParser
import Foundation
import KioskPadCommandLine
import SiteAssembly
import SiteCore

/// `kioskpad verifier replica-key show|rotate|finish`: rotating the key the site signs its
/// doors' replicas and settings with, without a window in which a door is refused.
struct VerifierReplicaKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replica-key",
        abstract: "Rotate the key this site signs replicas and settings with: adopted doors learn the next key at their check-in.",
        discussion: """
            `rotate` makes the next key; each adopted door is told of it at its next check-in (signed by the key it trusts) \
            and says it holds it. `finish` then signs with the next key; it is refused while an adopted door has not said so. \
            Doors given the key by hand (verifier.offline.public_key) need the next key in their file before `finish`.
            """,
        subcommands: [Show.self, Rotate.self, Finish.self])

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the key that signs, the next one during a rotation, and which adopted doors hold it.")
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let standing = try await target.withStore { opened in
                try await VerifierUserCommand.applying(opened) { try await VerifierReplicaKeyCommand.changes(opened).standing() }
            }
            writeLine("signing with \(standing.current)")
            guard let next = standing.next else {
                writeLine("no rotation under way")
                return
            }
            writeLine("next key \(next)")
            writeLine("adopted doors holding it: \(standing.ready.isEmpty ? "none yet" : standing.ready.joined(separator: ", "))")
            writeLine(
                "adopted doors still to learn it: \(standing.waiting.isEmpty ? "none; `replica-key finish` may end the rotation" : standing.waiting.joined(separator: ", "))"
            )
        }
    }

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Start a rotation: make the next key; adopted doors learn it at their next check-in.")
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let next = try await target.withStore { opened in
                try await VerifierUserCommand.applying(opened) { try await VerifierReplicaKeyCommand.changes(opened).rotate() }
            }
            writeLine("next replica key \(next): adopted doors learn it at their next check-in; `replica-key show` lists them")
            writeLine("a door given the key by hand needs it in verifier.offline.public_key before `replica-key finish`")
        }
    }

    struct Finish: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "End the rotation: sign with the next key from now on; refused while an adopted door has not said it holds it.")
        @Flag(help: "Finish even though adopted doors have not said they hold the next key (they take no settings until adopted again).")
        var force = false
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            try await target.withStore { opened in
                try await VerifierUserCommand.applying(opened) { try await VerifierReplicaKeyCommand.changes(opened).finish(force: force) }
            }
            writeLine("the site signs replicas and settings with the new key; each adopted door drops the old one at its next check-in")
        }
    }

    static func changes(_ opened: OpenedVerifierStore) -> ReplicaKeyChanges {
        ReplicaKeyChanges(
            administration: opened.administration, replica: opened.replica, changes: AdministratorChanges(store: opened.store, by: .commandLine()))
    }
}
