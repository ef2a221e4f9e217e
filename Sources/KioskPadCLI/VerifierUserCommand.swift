import ArgumentParser
import Foundation
import KeypadCore
import KeypadVerifier
import KioskPadConfig

/// `kioskpad verifier user`: manage the reference verifier's users without editing its file.
struct VerifierUserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Add, remove and list users, and set their PIN, duress PIN, TOTP secret and cards, in the verifier's users file.",
        discussion: """
            Edits server.users_file under a lock and replaces it atomically (owner and mode kept); \
            a running `kioskpad verifier serve` uses the change from its next attempt, no restart. \
            PINs are read from stdin, not echoed on a terminal (asked twice there).
            """,
        subcommands: [Add.self, Remove.self, List.self, SetPIN.self, SetDuress.self, TOTPSecret.self, AddCard.self, RemoveCard.self])

    /// The options every user subcommand takes.
    struct Target: ParsableArguments {
        @Option(help: "Verifier config file (YAML, a `server:` section).")
        var config: String

        func settings() throws -> VerifierServerConfiguration {
            try ConfigLoader.loadServer(path: config)
        }

        func editor() throws -> UsersFileEditor {
            UsersFileEditor(path: try settings().usersFile)
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

        /// Reads the PIN (or card number, for `kind` card), hashes (and with a lookup key,
        /// tags) it, makes the change `change` describes and prints its line.
        func apply(kind: AttemptKind = .pin, _ change: (UsersFileEditor, PINHash, String?) throws -> String) throws {
            let settings = try target.settings()
            let editor = UsersFileEditor(path: settings.usersFile)
            // Only commands that write a hash need the server's lookup key.
            let lookup = try loadLookupKey(settings)
            let pin = try VerifierUserCommand.readPIN(card: kind == .card)
            let hash = try PINHash.make(pin: pin, iterations: iterations)
            let tag = lookup?.tag(pin, kind: kind)
            writeLine(try VerifierUserCommand.applying { try change(editor, hash, tag) })
        }
    }

    /// `user add NAME`: a new user with a PIN.
    struct Add: NewPINCommand {
        static let configuration = CommandConfiguration(abstract: "Add a user with a PIN read from stdin.")
        @OptionGroup var pin: NewPIN

        func change(_ editor: UsersFileEditor, _ hash: PINHash, _ tag: String?) throws -> String {
            try editor.add(name: pin.name, hash: hash, tag: tag)
            return "user '\(pin.name)' added to \(editor.path)"
        }
    }

    /// `user remove NAME`: every line of the user (PIN, duress PIN, cards).
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a user: their PIN, duress PIN, TOTP secret and cards.")
        @Argument(help: "User name.") var name: String
        @OptionGroup var target: Target

        func run() async throws {
            let editor = try target.editor()
            let lines = try VerifierUserCommand.applying { try editor.remove(name: name) }
            writeLine("user '\(name)' removed from \(editor.path) (\(lines) line\(lines == 1 ? "" : "s"))")
        }
    }

    /// `user list`: names and what each has, never a hash or secret.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List users and what each has (PIN, TOTP, duress PIN, cards); no hashes.")
        @OptionGroup var target: Target

        func run() async throws {
            let editor = try target.editor()
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
    struct SetPIN: NewPINCommand {
        static let configuration = CommandConfiguration(commandName: "set-pin", abstract: "Change a user's PIN (read from stdin); their TOTP secret is kept.")
        @OptionGroup var pin: NewPIN

        func change(_ editor: UsersFileEditor, _ hash: PINHash, _ tag: String?) throws -> String {
            try editor.setPIN(name: pin.name, hash: hash, tag: tag)
            return "PIN of '\(pin.name)' changed in \(editor.path)"
        }
    }

    /// `user set-duress NAME`: the user's duress PIN (opens and raises a silent alarm).
    struct SetDuress: NewPINCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-duress", abstract: "Set a user's duress PIN (read from stdin): it opens the door and raises a silent alarm.")
        @OptionGroup var pin: NewPIN

        func change(_ editor: UsersFileEditor, _ hash: PINHash, _ tag: String?) throws -> String {
            try editor.setDuress(name: pin.name, hash: hash, tag: tag)
            return "duress PIN of '\(pin.name)' set in \(editor.path)"
        }
    }

    /// `user add-card NAME`: a Wiegand card's number, hashed, on a `:card` line.
    struct AddCard: NewPINCommand {
        static let configuration = CommandConfiguration(
            commandName: "add-card",
            abstract: "Add a card for a user: its number (the value `kioskpad keytest` shows) read from stdin.")
        static let kind = AttemptKind.card
        @OptionGroup var pin: NewPIN

        func change(_ editor: UsersFileEditor, _ hash: PINHash, _ tag: String?) throws -> String {
            try editor.addCard(name: pin.name, hash: hash, tag: tag)
            return "card added for '\(pin.name)' in \(editor.path)"
        }
    }

    /// `user remove-card NAME`: the card whose number is read from stdin.
    struct RemoveCard: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove-card", abstract: "Remove one of a user's cards: its number read from stdin.")
        @Argument(help: "User name.") var name: String
        @OptionGroup var target: Target

        func run() async throws {
            let editor = try target.editor()
            let value = try VerifierUserCommand.readPIN(card: true)
            try VerifierUserCommand.applying { try editor.removeCard(name: name, value: value) }
            writeLine("card removed for '\(name)' in \(editor.path)")
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
            let editor = try target.editor()
            let secret = TOTP.newSecret()
            try VerifierUserCommand.applying { try editor.setTOTP(name: name, secret: secret) }
            writeLine(TOTP(secret: secret).provisioningURI(account: name, issuer: issuer))
        }
    }

    /// Reads a PIN or card number (twice on a terminal); its buffer is wiped when the last copy goes.
    static func readPIN(card: Bool = false) throws -> SecretDigits {
        let what = card ? "card number" : "PIN"
        let pin = try SecretReader.readPIN(prompt: card ? "Card number: " : "PIN: ")
        if isatty(STDIN_FILENO) == 1 {
            let again = try SecretReader.readPIN(prompt: card ? "Card number again: " : "PIN again: ")
            let same = pin.withASCIIBytes { first in again.withASCIIBytes { ConstantTime.equal(first, $0) } }
            guard same else { throw UsageError(description: "the two \(what)s differ; nothing was changed") }
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

/// A `verifier user` command that reads a new PIN (or card number), hashes and tags it,
/// and makes one change with it (`change` says what it did).
protocol NewPINCommand: AsyncParsableCommand {
    static var kind: AttemptKind { get }
    var pin: VerifierUserCommand.NewPIN { get }
    func change(_ editor: UsersFileEditor, _ hash: PINHash, _ tag: String?) throws -> String
}

extension NewPINCommand {
    static var kind: AttemptKind { .pin }

    func run() async throws {
        try pin.apply(kind: Self.kind) { try change($0, $1, $2) }
    }
}
