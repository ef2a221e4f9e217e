import ArgumentParser
import KioskPadAccess
import KioskPadCommandLine
import KioskPadCore
import SiteAssembly
import SiteConsole
import SiteCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `kioskpad verifier admin`: the site console's administrators.
struct VerifierAdminCommand: AsyncParsableCommand {
    /// `--door-groups a,b` as names (nil: not given).
    static func groups(_ text: String?) -> [String]? {
        text.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
    }

    static let configuration = CommandConfiguration(
        commandName: "admin", abstract: "Add, list and remove the site console's administrators.",
        subcommands: [Add.self, List.self, Remove.self, Role.self, TOTPSecret.self])

    /// `admin add NAME`: a password read from stdin (asked twice on a terminal).
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a console administrator; the password (12-256 bytes) is read from stdin, twice on a terminal.",
            discussion: "It is stored as a PBKDF2-SHA256 hash with \(PINHash.passwordIterations) iterations, never in clear.")
        @Argument(help: "Administrator name: 1-64 of letters, digits, '.', '_' or '-'.") var name: String
        @Option(help: "What they may do (kioskpad verifier roles): \(SiteRole.allCases.map(\.name).joined(separator: ", ")).") var role: String
        @Option(
            help:
                "Limit a guard or user manager to these door groups (comma-separated): a guard sees and acts on those doors only, never the whole site; a user manager sees and changes only users whose access lies within them."
        )
        var doorGroups: String?
        @OptionGroup var target: VerifierDatabaseTarget

        func validate() throws {
            guard Identifier.isValid(name) else { throw ValidationError("administrator name '\(name)' must be 1-64 of letters, digits, '.', '_' or '-'") }
            do { _ = try SiteRole.parse(role, field: "--role") } catch { throw ValidationError("\(error)") }
        }

        func run() async throws {
            var password = try SecretReader.readPassword(prompt: "Password: ")
            defer { for index in password.indices { password[index] = 0 } }
            if isatty(STDIN_FILENO) == 1 {
                var again = try SecretReader.readPassword(prompt: "Password again: ")
                defer { for index in again.indices { again[index] = 0 } }
                guard ConstantTime.equal(password, again) else { throw UsageError(description: "the two passwords differ; nothing was changed") }
            }
            // PBKDF2 on the hashing pool's console lane, not on a cooperative thread. The copy
            // the pool is given ends with this block, so the wipe above finds the password's
            // bytes held once and clears them in place.
            let hash: PINHash
            do {
                let typed = password
                hash = try await HashingPool.shared.run(.console) { try PINHash.make(password: typed) }
            }
            let location = try await target.administrators { accounts, location in
                try await accounts.add(name, hash: hash, role: try SiteRole.parse(role, field: "--role"), doorGroups: VerifierAdminCommand.groups(doorGroups))
                return location
            }
            writeLine("administrator '\(name)' (\(role)) added to \(location)")
        }
    }

    /// `admin list`: names and roles.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "List the console's administrators: name and role, a tab between (then door_groups=..., and provider=ISSUER for one who signs in through the identity provider)."
        )
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let admins = try await target.withStore { opened in
                try await VerifierUserCommand.applying(opened) {
                    try await opened.console.adminRoles().map {
                        "\($0.name)\t\($0.role.name)" + ($0.doorGroups.map { "\tdoor_groups=" + $0.joined(separator: ",") } ?? "")
                            + ($0.provider.map { "\tprovider=" + $0 } ?? "")
                    }
                }
            }
            for line in admins { writeLine(line) }
        }
    }

    /// `admin role NAME ROLE`: another role, held from their next request.
    struct Role: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give a console administrator another role; their open sessions hold it from their next request.")
        @Argument(help: "Administrator name.") var name: String
        @Argument(help: "The role (kioskpad verifier roles): \(SiteRole.allCases.map(\.name).joined(separator: ", ")).") var role: String
        @Option(help: "Limit a guard or user manager to these door groups (comma-separated); left out: every door.") var doorGroups: String?
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let given: SiteRole
            do { given = try SiteRole.parse(role, field: "ROLE") } catch { throw UsageError(description: "\(error)") }
            let groups = VerifierAdminCommand.groups(doorGroups)
            try await target.administrators { accounts, _ in try await accounts.setRole(name, role: given, doorGroups: groups) }
            writeLine("administrator '\(name)' is now \(given.name)" + (groups.map { " of door groups " + $0.joined(separator: ", ") } ?? ""))
        }
    }

    /// `admin remove NAME`: the administrator and their sessions.
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a console administrator; their sessions end at once.")
        @Argument(help: "Administrator name.") var name: String
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let location = try await target.administrators { accounts, location in
                try await accounts.remove(name)
                return location
            }
            writeLine("administrator '\(name)' removed from \(location)")
        }
    }

    /// `admin totp NAME`: a TOTP secret, so the administrator's logins need the app's code too.
    struct TOTPSecret: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "totp",
            abstract: "Give a console administrator a new TOTP secret (printed once, with a QR code on a terminal); --remove takes it away.")
        @Argument(help: "Administrator name.") var name: String
        @OptionGroup var target: VerifierDatabaseTarget
        @Flag(help: "Remove the administrator's TOTP secret: logins need the password only.") var remove = false

        func run() async throws {
            let secret = remove ? nil : TOTP.newSecret()
            try await target.administrators { accounts, _ in try await accounts.setTOTP(name, secret: secret) }
            guard let secret else {
                writeLine("administrator '\(name)': TOTP removed; logins need the password only")
                return
            }
            let uri = TOTP(secret: secret).provisioningURI(account: name, issuer: "KioskPad console")
            if isatty(STDOUT_FILENO) == 1, let image = try? QRCodeImage(encoding: uri) {
                writeLine(TerminalQR.render(image))
            }
            writeLine(uri)
        }
    }
}

/// A QR code for a terminal: two module rows per line in half blocks, black on white
/// whatever the terminal's colours, with a two-module quiet zone.
enum TerminalQR {
    static func render(_ image: QRCodeImage) -> String {
        let margin = 2
        let size = image.width + 2 * margin
        func dark(_ x: Int, _ y: Int) -> Bool {
            let (mx, my) = (x - margin, y - margin)
            return mx >= 0 && my >= 0 && mx < image.width && my < image.width && image.isDark(x: mx, y: my)
        }
        var lines: [String] = []
        for y in stride(from: 0, to: size, by: 2) {
            var line = "\u{1B}[30;47m"
            for x in 0..<size {
                switch (dark(x, y), dark(x, y + 1)) {
                case (true, true): line += "\u{2588}"
                case (true, false): line += "\u{2580}"
                case (false, true): line += "\u{2584}"
                case (false, false): line += " "
                }
            }
            lines.append(line + "\u{1B}[0m")
        }
        return lines.joined(separator: "\n")
    }
}

/// `kioskpad verifier roles`: who may do what, the table the docs print.
struct VerifierRolesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "roles", abstract: "Print the operators' roles and their permissions (Markdown: a row a permission, a column a role).")

    func run() async throws {
        writeLine(SiteRole.markdownTable())
    }
}
