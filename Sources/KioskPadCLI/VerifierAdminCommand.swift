import ArgumentParser
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import KeypadCore
import KeypadVerifier
import KioskPadVerifierAssembly
import ReferenceVerifierCore

/// `kioskpad verifier admin`: the site console's administrators.
struct VerifierAdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin", abstract: "Add, list and remove the site console's administrators.",
        subcommands: [Add.self, List.self, Remove.self])

    /// `admin add NAME`: a password read from stdin (asked twice on a terminal).
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a console administrator; the password (12-256 bytes) is read from stdin, twice on a terminal.",
            discussion: "It is stored as a PBKDF2-SHA256 hash with \(PINHash.passwordIterations) iterations, never in clear.")
        @Argument(help: "Administrator name: 1-64 of letters, digits, '.', '_' or '-'.") var name: String
        @OptionGroup var target: VerifierDatabaseTarget

        func validate() throws {
            guard Identifier.isValid(name) else { throw ValidationError("administrator name '\(name)' must be 1-64 of letters, digits, '.', '_' or '-'") }
        }

        func run() async throws {
            var password = try SecretReader.readPassword(prompt: "Password: ")
            defer { for index in password.indices { password[index] = 0 } }
            if isatty(STDIN_FILENO) == 1 {
                var again = try SecretReader.readPassword(prompt: "Password again: ")
                defer { for index in again.indices { again[index] = 0 } }
                guard ConstantTime.equal(password, again) else { throw UsageError(description: "the two passwords differ; nothing was changed") }
            }
            let hash = try PINHash.make(password: password)
            try await target.withStore { opened in
                let added = try await VerifierUserCommand.applying(opened) { try await opened.console.addAdmin(name: name, hash: hash) }
                guard added else {
                    throw UsageError(description: "administrator '\(name)' is already in \(opened.location); `kioskpad verifier admin remove \(name)` first to replace them")
                }
                try await opened.store.audit([("action", "admin_add"), ("admin", name), ("source", "cli")])
                writeLine("administrator '\(name)' added to \(opened.location)")
            }
        }
    }

    /// `admin list`: names only.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the console's administrators (names only).")
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let names = try await target.withStore { opened in try await VerifierUserCommand.applying(opened) { try await opened.console.adminNames() } }
            for name in names { writeLine(name) }
        }
    }

    /// `admin remove NAME`: the administrator and their sessions.
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a console administrator; their sessions end at once.")
        @Argument(help: "Administrator name.") var name: String
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            try await target.withStore { opened in
                guard try await VerifierUserCommand.applying(opened, { try await opened.console.removeAdmin(name: name) }) else {
                    throw UsageError(description: "no administrator '\(name)' in \(opened.location)")
                }
                try await opened.store.audit([("action", "admin_remove"), ("admin", name), ("source", "cli")])
                writeLine("administrator '\(name)' removed from \(opened.location)")
            }
        }
    }
}
