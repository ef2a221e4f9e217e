import ArgumentParser
import Foundation
import KioskPadAccess
import KioskPadCommandLine
import KioskPadConfig
import KioskPadCore
import Logging
import SiteAssembly
import SiteConfig
import SiteCore

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
        subcommands: [
            Add.self, Remove.self, Rename.self, List.self, SetRules.self, Disable.self, Enable.self, SetPIN.self, SetDuress.self, TOTPSecret.self, AddCard.self,
            RemoveCard.self, EnrolCode.self, LearnCard.self, UnknownCards.self, ClaimCard.self,
        ])

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

        /// Reads the PIN (or card number) from stdin and sets `secret` of this user to it
        /// (``UsersEditing/set(_:of:to:iterations:)``: hashed, tagged, audited); where the
        /// database is.
        func set(_ secret: UserSecret) async throws -> String {
            let value = try VerifierUserCommand.readPIN(card: secret == .card)
            let (name, iterations) = (self.name, self.iterations)
            return try await target.users(lookupKey: true) { users, location in
                try await users.set(secret, of: name, to: value, iterations: iterations)
                return location
            }
        }
    }

    /// `user add NAME`: a new user with a PIN, and the doors, schedule and validity given
    /// (``UsersEditing/add(_:)``).
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a user with a PIN read from stdin; by default they may open every door, always.")
        @OptionGroup var pin: NewPIN
        @OptionGroup var rule: AccessRuleOptions

        func run() async throws {
            var access = AccessRule()
            try rule.patch().apply(to: &access)
            let command = AddUser(name: pin.name, pin: .digits(try VerifierUserCommand.readPIN(), iterations: pin.iterations), rule: access)
            let (notes, location) = try await pin.target.users(lookupKey: true) { users, location in (try await users.add(command), location) }
            VerifierDatabaseTarget.warn(notes)
            writeLine("user '\(pin.name)' added to \(location)" + (access.isDefault ? "" : " (\(access.text))"))
        }
    }

    /// `user set NAME --doors ... --schedule ... --valid-from ... --valid-until ...`.
    struct SetRules: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set", abstract: "Change which doors a user may open, their schedule and their validity.")
        @Argument(help: "User name.") var name: String
        @OptionGroup var rule: AccessRuleOptions
        @OptionGroup var target: VerifierDatabaseTarget

        func validate() throws {
            if rule.isEmpty {
                throw ValidationError("give at least one of --doors, --all-doors, --schedule, --valid-from, --valid-until, --responder, --staff")
            }
        }

        func run() async throws {
            let patch = try rule.patch()
            let (saved, notes) = try await target.users { users, _ in try await users.changeRule(of: name, patch) }
            VerifierDatabaseTarget.warn(notes)
            writeLine("user '\(name)': \(VerifierUserCommand.describe(saved))")
        }
    }

    /// `user disable NAME`: refused at every door, kept with their history.
    struct Disable: UserStateCommand {
        static let configuration = CommandConfiguration(
            abstract: "Switch a user off without deleting them: every attempt of theirs is denied (audited as disabled).")
        static let disabled = true
        @Argument(help: "User name.") var name: String
        @OptionGroup var target: VerifierDatabaseTarget
    }

    /// `user enable NAME`: undoes `disable`.
    struct Enable: UserStateCommand {
        static let configuration = CommandConfiguration(abstract: "Switch a disabled user on again.")
        static let disabled = false
        @Argument(help: "User name.") var name: String
        @OptionGroup var target: VerifierDatabaseTarget
    }

    /// A rule as `user list` shows it: doors, schedule, validity, state, then the marks it
    /// has (responder: enters in a lockdown; staff: opens a first-in door for the day).
    static func describe(_ rule: AccessRule) -> String {
        let doors: String = !rule.hasOwnGrant ? "none" : rule.doors.map { $0.isEmpty ? "none" : $0.joined(separator: ",") } ?? "all"
        let from: String = rule.validFrom?.description ?? ""
        let until: String = rule.validUntil?.description ?? ""
        let valid: String = from.isEmpty && until.isEmpty ? "always" : "\(from)..\(until)"
        let state: String = rule.disabled ? "disabled" : "enabled"
        let marks = (rule.responder ? " responder" : "") + (rule.staff ? " staff" : "")
        let levels =
            (rule.levels.isEmpty ? "" : " levels=" + rule.levels.joined(separator: ","))
            + (rule.groups.isEmpty ? "" : " groups=" + rule.groups.joined(separator: ","))
        return "doors=\(doors) schedule=\(rule.schedule ?? "always")\(levels) valid=\(valid) \(state)\(marks)"
    }

    /// `user remove NAME`: every line of the user (PIN, duress PIN, cards).
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a user: their PIN, duress PIN, TOTP secret and cards.")
        @Argument(help: "User name.") var name: String
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let (lines, location) = try await target.users { users, location in (try await users.remove(name), location) }
            writeLine("user '\(name)' removed from \(location) (\(lines) entr\(lines == 1 ? "y" : "ies"))")
        }
    }

    /// `user rename NAME NEW_NAME`: the user keeps their PIN, cards, TOTP, rule and codes.
    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Rename a user; their PIN, duress PIN, cards, TOTP secret, rule and unused codes go with them.")
        @Argument(help: "User name now.") var name: String
        @Argument(help: "New name: 1-64 of letters, digits, '.', '_' or '-'.") var newName: String
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let location = try await target.users { users, location in
                try await users.rename(name, to: newName)
                return location
            }
            writeLine("user '\(name)' is now '\(newName)' in \(location)")
        }
    }

    /// `user list`: names and what each has, never a hash or secret.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List users: what each has (PIN, TOTP, duress PIN, cards; no hashes), their doors, schedule, validity and state.")
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let (users, site) = try await target.withStore { opened in
                try await VerifierUserCommand.applying(opened) { (try await opened.administration.list(), try await opened.administration.siteRules()) }
            }
            for user in users {
                var has: [String] = []
                if user.hasPIN { has.append("pin") }
                if user.hasTOTP { has.append("totp") }
                if user.hasDuressPIN { has.append("duress") }
                if user.cards > 0 { has.append("cards=\(user.cards)") }
                writeLine("\(user.name) \(has.joined(separator: ",")) \(VerifierUserCommand.describe(site.rules[user.name] ?? AccessRule()))")
            }
        }
    }

    /// `user set-pin NAME`: a new PIN for an existing user.
    struct SetPIN: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set-pin", abstract: "Change a user's PIN (read from stdin); their TOTP secret is kept.")
        @OptionGroup var pin: NewPIN

        func run() async throws {
            writeLine("PIN of '\(pin.name)' changed in \(try await pin.set(.pin))")
        }
    }

    /// `user set-duress NAME`: the user's duress PIN (opens and raises a silent alarm).
    struct SetDuress: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-duress", abstract: "Set a user's duress PIN (read from stdin): it opens the door and raises a silent alarm.")
        @OptionGroup var pin: NewPIN

        func run() async throws {
            writeLine("duress PIN of '\(pin.name)' set in \(try await pin.set(.duressPIN))")
        }
    }

    /// `user add-card NAME`: a Wiegand card's number, hashed, on a `:card` line.
    struct AddCard: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add-card",
            abstract: "Add a card for a user: its number (the value `kioskpad keytest` shows) read from stdin.")
        @OptionGroup var pin: NewPIN

        func run() async throws {
            writeLine("card added for '\(pin.name)' in \(try await pin.set(.card))")
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
            let location = try await target.users { users, location in
                try await users.removeCard(of: name, value)
                return location
            }
            writeLine("card removed for '\(name)' in \(location)")
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
            try await target.users { users, _ in try await users.setTOTP(of: name, secret: secret) }
            writeLine(TOTP(secret: secret).provisioningURI(account: name, issuer: issuer))
        }
    }

    /// Reads a PIN or card number (twice on a terminal); its buffer is wiped when the last copy goes.
    static func readPIN(card: Bool = false) throws -> SecretDigits {
        let what = card ? "card number" : "PIN"
        let pin = try SecretReader.readPIN(prompt: card ? "Card number: " : "PIN: ")
        if isatty(STDIN_FILENO) == 1 {
            let again = try SecretReader.readPIN(prompt: card ? "Card number again: " : "PIN again: ")
            let same = pin.hasSameDigits(as: again)
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
        } catch let error as PairingRefusal {
            throw UsageError(description: error.description)
        } catch let error as ReplicaKeyChanges.Refusal {
            throw UsageError(description: error.description)
        } catch let error as KeyedError {
            throw error
        } catch {
            throw KeyedError(key: opened.configKey, message: "\(error)", kind: .unavailable(retryable: true))
        }
    }
}

/// `user disable` or `user enable`: sets the user's state and prints their rule.
protocol UserStateCommand: AsyncParsableCommand {
    static var disabled: Bool { get }
    var name: String { get }
    var target: VerifierDatabaseTarget { get }
}

extension UserStateCommand {
    func run() async throws {
        let disabled = Self.disabled
        let rule = try await target.users { users, _ in try await users.setDisabled(name, disabled) }
        writeLine("user '\(name)': \(VerifierUserCommand.describe(rule))")
    }
}
