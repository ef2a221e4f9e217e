import ArgumentParser
import Foundation
import KeypadCore
import KeypadVerifier
import KioskPadConfig
import Logging
import KioskPadVerifierAssembly

/// `kioskpad verifier user`: manage the reference verifier's users without editing its file.
struct VerifierUserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Add, remove and list users, and set their PIN, duress PIN, TOTP secret and cards, in the verifier's database.",
        discussion: """
            Each change is one transaction in the verifier's database (SQLite or PostgreSQL); a running \
            `kioskpad verifier serve` uses it from its next attempt, no restart. PINs are read from stdin, \
            not echoed on a terminal (asked twice there).
            """,
        subcommands: [Add.self, Remove.self, List.self, SetPIN.self, SetDuress.self, TOTPSecret.self, AddCard.self, RemoveCard.self])

    /// What the commands that set a PIN take: the user, the config, the hash's work factor.
    struct NewPIN: ParsableArguments {
        @Argument(help: "User name: 1-64 of letters, digits, '.', '_' or '-'.") var name: String
        @OptionGroup var target: VerifierDatabaseTarget
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
        func apply(kind: AttemptKind = .pin, _ change: (any UserDirectory, PINHash, String?) async throws -> String) async throws {
            let settings = try target.settings()
            // Only commands that write a hash need the server's lookup key.
            let lookup = try VerifierAssembly.lookupKey(settings)
            let pin = try VerifierUserCommand.readPIN(card: kind == .card)
            let hash = try PINHash.make(pin: pin, iterations: iterations)
            let tag = lookup?.tag(pin, kind: kind)
            try await target.withStore(settings) { opened in
                writeLine(try await VerifierUserCommand.applying(opened) { try await change(opened.administration, hash, tag) })
            }
        }
    }

    /// `user add NAME`: a new user with a PIN.
    struct Add: NewPINCommand {
        static let configuration = CommandConfiguration(abstract: "Add a user with a PIN read from stdin.")
        @OptionGroup var pin: NewPIN

        func change(_ editor: any UserDirectory, _ hash: PINHash, _ tag: String?) async throws -> String {
            try await editor.add(name: pin.name, hash: hash, tag: tag)
            return "user '\(pin.name)' added to \(editor.location)"
        }
    }

    /// `user remove NAME`: every line of the user (PIN, duress PIN, cards).
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a user: their PIN, duress PIN, TOTP secret and cards.")
        @Argument(help: "User name.") var name: String
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            try await target.withStore { opened in
                let lines = try await VerifierUserCommand.applying(opened) { try await opened.administration.remove(name: name) }
                writeLine("user '\(name)' removed from \(opened.location) (\(lines) entr\(lines == 1 ? "y" : "ies"))")
            }
        }
    }

    /// `user list`: names and what each has, never a hash or secret.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List users and what each has (PIN, TOTP, duress PIN, cards); no hashes.")
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let users = try await target.withStore { opened in
                try await VerifierUserCommand.applying(opened) { try await opened.administration.list() }
            }
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

        func change(_ editor: any UserDirectory, _ hash: PINHash, _ tag: String?) async throws -> String {
            try await editor.setPIN(name: pin.name, hash: hash, tag: tag)
            return "PIN of '\(pin.name)' changed in \(editor.location)"
        }
    }

    /// `user set-duress NAME`: the user's duress PIN (opens and raises a silent alarm).
    struct SetDuress: NewPINCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-duress", abstract: "Set a user's duress PIN (read from stdin): it opens the door and raises a silent alarm.")
        @OptionGroup var pin: NewPIN

        func change(_ editor: any UserDirectory, _ hash: PINHash, _ tag: String?) async throws -> String {
            try await editor.setDuress(name: pin.name, hash: hash, tag: tag)
            return "duress PIN of '\(pin.name)' set in \(editor.location)"
        }
    }

    /// `user add-card NAME`: a Wiegand card's number, hashed, on a `:card` line.
    struct AddCard: NewPINCommand {
        static let configuration = CommandConfiguration(
            commandName: "add-card",
            abstract: "Add a card for a user: its number (the value `kioskpad keytest` shows) read from stdin.")
        static let kind = AttemptKind.card
        @OptionGroup var pin: NewPIN

        func change(_ editor: any UserDirectory, _ hash: PINHash, _ tag: String?) async throws -> String {
            try await editor.addCard(name: pin.name, hash: hash, tag: tag)
            return "card added for '\(pin.name)' in \(editor.location)"
        }
    }

    /// `user remove-card NAME`: the card whose number is read from stdin.
    struct RemoveCard: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove-card", abstract: "Remove one of a user's cards: its number read from stdin.")
        @Argument(help: "User name.") var name: String
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let value = try VerifierUserCommand.readPIN(card: true)
            try await target.withStore { opened in
                try await VerifierUserCommand.applying(opened) { try await opened.administration.removeCard(name: name, value: value) }
                writeLine("card removed for '\(name)' in \(opened.location)")
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
        @OptionGroup var target: VerifierDatabaseTarget
        @Option(help: "Issuer shown in the authenticator app.") var issuer = "KioskPad"

        func run() async throws {
            let secret = TOTP.newSecret()
            try await target.withStore { opened in
                try await VerifierUserCommand.applying(opened) { try await opened.administration.setTOTP(name: name, secret: secret) }
            }
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

    /// Runs a change or a read; a refused change becomes a usage error, any other error
    /// names the key that says where the database is (exit 1).
    static func applying<T>(_ opened: OpenedVerifierStore, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as UserEditError {
            throw UsageError(description: error.description)
        } catch let error as KeyedError {
            throw error
        } catch {
            throw KeyedError(key: opened.configKey, message: "\(error)", kind: .unavailable(retryable: true))
        }
    }
}

/// A `verifier user` command that reads a new PIN (or card number), hashes and tags it,
/// and makes one change with it (`change` says what it did).
protocol NewPINCommand: AsyncParsableCommand {
    static var kind: AttemptKind { get }
    var pin: VerifierUserCommand.NewPIN { get }
    func change(_ editor: any UserDirectory, _ hash: PINHash, _ tag: String?) async throws -> String
}

extension NewPINCommand {
    static var kind: AttemptKind { .pin }

    func run() async throws {
        try await pin.apply(kind: Self.kind) { try await change($0, $1, $2) }
    }
}
