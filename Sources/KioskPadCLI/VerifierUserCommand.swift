import ArgumentParser
import Foundation
import KeypadCore
import KeypadVerifier
import KioskPadConfig

/// `kioskpad verifier user`: manage the reference verifier's users without editing its file.
struct VerifierUserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Add, remove, list users, change a PIN or give a TOTP secret, in the verifier's users file.",
        discussion: """
            Edits server.users_file under a lock and replaces it atomically (owner and mode kept); \
            a running `kioskpad verifier serve` uses the change from its next attempt, no restart. \
            PINs are read from stdin, not echoed on a terminal (asked twice there).
            """,
        subcommands: [Add.self, Remove.self, List.self, SetPIN.self, TOTPSecret.self])

    /// The options every user subcommand takes.
    struct Target: ParsableArguments {
        @Option(help: "Verifier config file (YAML, a `server:` section).")
        var config: String

        /// The users file's editor and, when the server has one, its lookup key.
        func editor() throws -> (UsersFileEditor, LookupKey?) {
            let settings = try ConfigLoader.loadServer(path: config)
            return (UsersFileEditor(path: settings.usersFile), try loadLookupKey(settings))
        }
    }

    /// What the commands that set a PIN take: the user, the config, the hash's work factor.
    struct NewPIN: ParsableArguments {
        @Argument(help: "User name: 1-64 of letters, digits, '.', '_' or '-'.") var name: String
        @OptionGroup var target: Target
        @Option(help: "PBKDF2-SHA256 iterations (\(PINHash.iterationRange)).") var iterations = PINHash.defaultIterations

        func validate() throws {
            guard UsersFile.isValidName(name) else {
                throw ValidationError("user name '\(name)' must be 1-64 of letters, digits, '.', '_' or '-'")
            }
            guard PINHash.iterationRange.contains(iterations) else {
                throw ValidationError("--iterations \(iterations) is out of range \(PINHash.iterationRange)")
            }
        }

        /// Reads the PIN, hashes (and with a lookup key, tags) it, makes the change `change`
        /// describes and prints its line.
        func apply(_ change: (UsersFileEditor, PINHash, String?) throws -> String) throws {
            let (editor, lookup) = try target.editor()
            let pin = try VerifierUserCommand.readPIN()
            let hash = try PINHash.make(pin: pin, iterations: iterations)
            let tag = lookup?.tag(pin, kind: .pin)
            writeLine(try VerifierUserCommand.applying { try change(editor, hash, tag) })
        }
    }

    /// `user add NAME`: a new user with a PIN.
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a user with a PIN read from stdin.")
        @OptionGroup var pin: NewPIN

        func run() async throws {
            try pin.apply { editor, hash, tag in
                try editor.add(name: pin.name, hash: hash, tag: tag)
                return "user '\(pin.name)' added to \(editor.path)"
            }
        }
    }

    /// `user remove NAME`: every line of the user (PIN, duress PIN, cards).
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a user: their PIN, duress PIN, TOTP secret and cards.")
        @Argument(help: "User name.") var name: String
        @OptionGroup var target: Target

        func run() async throws {
            let (editor, _) = try target.editor()
            let lines = try VerifierUserCommand.applying { try editor.remove(name: name) }
            writeLine("user '\(name)' removed from \(editor.path) (\(lines) line\(lines == 1 ? "" : "s"))")
        }
    }

    /// `user list`: names and what each has, never a hash or secret.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List users and what each has (PIN, TOTP, duress PIN, cards); no hashes.")
        @OptionGroup var target: Target

        func run() async throws {
            let (editor, _) = try target.editor()
            let users = try VerifierUserCommand.applying { try editor.list() }
            for user in users {
                var has: [String] = []
                if user.hasPIN { has.append("pin") }
                if user.hasTOTP { has.append("totp") }
                if user.hasDuressPIN { has.append("duress") }
                if user.cards > 0 { has.append("cards=\(user.cards)") }
                writeLine("\(user.name) \(has.joined(separator: ","))")
            }
        }
    }

    /// `user set-pin NAME`: a new PIN for an existing user.
    struct SetPIN: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set-pin", abstract: "Change a user's PIN (read from stdin); their TOTP secret is kept.")
        @OptionGroup var pin: NewPIN

        func run() async throws {
            try pin.apply { editor, hash, tag in
                try editor.setPIN(name: pin.name, hash: hash, tag: tag)
                return "PIN of '\(pin.name)' changed in \(editor.path)"
            }
        }
    }

    /// `user totp NAME`: a new TOTP secret, printed once as an otpauth:// URI.
    struct TOTPSecret: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "totp",
            abstract: "Give a user a new TOTP secret (authenticator app) and print its otpauth:// URI once.",
            discussion: "Turn the URI into a QR code for the user's app (e.g. qrencode -t ansiutf8). A second run replaces the secret.")
        @Argument(help: "User name.") var name: String
        @OptionGroup var target: Target
        @Option(help: "Issuer shown in the authenticator app.") var issuer = "KioskPad"

        func run() async throws {
            let (editor, _) = try target.editor()
            let secret = TOTP.newSecret()
            try VerifierUserCommand.applying { try editor.setTOTP(name: name, secret: secret) }
            writeLine(TOTP(secret: secret).provisioningURI(account: name, issuer: issuer))
        }
    }

    /// Reads a PIN (twice on a terminal); its buffer is wiped when the last copy goes.
    static func readPIN() throws -> SecretDigits {
        let pin = try SecretReader.readPIN(prompt: "PIN: ")
        if isatty(STDIN_FILENO) == 1 {
            let again = try SecretReader.readPIN(prompt: "PIN again: ")
            let same = pin.withASCIIBytes { first in again.withASCIIBytes { ConstantTime.equal(first, $0) } }
            guard same else { throw UsageError(description: "the two PINs differ; nothing was changed") }
        }
        return pin
    }

    /// Runs an edit; a refused one becomes a usage error naming `server.users_file`.
    static func applying<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as UsersFileEditor.EditError {
            throw UsageError(description: error.description)
        } catch {
            throw KeyedError(key: "server.users_file", message: "\(error)")
        }
    }
}
