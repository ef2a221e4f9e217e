import ArgumentParser
import Foundation
import KioskPadAccess
import KioskPadCommandLine
import KioskPadCore
import KioskPadStorage
import SiteCore

/// `kioskpad verifier import --users-file FILE`: users from a users file into the database.
struct VerifierImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Bring the users of a users file into the verifier's database (hashes, tags, TOTP secrets, duress PINs, cards, access rules).",
        discussion: """
            Idempotent: a user already there with the same lines is left alone, so a second run adds \
            nothing. A user there with other lines or other access rules, a schedule there with another \
            spec or another site time zone is a clash: each is named, nothing is imported, exit 1.
            """)

    @OptionGroup var target: VerifierDatabaseTarget
    @Option(help: "The users file (lines made by `kioskpad pin hash`).") var usersFile: String

    func run() async throws {
        let file: UsersFile
        do {
            file = try UsersFile.load(path: usersFile)
        } catch {
            throw KeyedError(key: "--users-file", message: "\(error); nothing was imported")
        }
        let added = try await target.withStore { opened in
            do {
                let users = UsersEditing(
                    administration: opened.administration, replica: opened.replica, lookupKey: nil,
                    changes: AdministratorChanges(store: opened.store, by: .commandLine()))
                return try await users.importUsers(file, from: usersFile)
            } catch let clash as UsersImport.Clash {
                throw ImportClash(description: clash.description + "\nnothing was imported from \(usersFile)")
            } catch let error as KeyedError {
                throw error
            } catch {
                throw KeyedError(key: opened.configKey, message: "\(error)", kind: .unavailable(retryable: true))
            }
        }
        let users = Set(file.users.map(\.name)).count
        writeLine("imported \(added) line\(added == 1 ? "" : "s") from \(usersFile) (\(users) user\(users == 1 ? "" : "s") in the file)")
    }

    /// Users whose lines differ between the file and the database (exit 1).
    struct ImportClash: Error, ExitCodeProviding {
        let description: String
        var exitCode: Int32 { 1 }
    }
}

/// `kioskpad verifier export --users-file FILE`: the database's users as a users file, for
/// a terminal's `verifier.kind: local`.
struct VerifierExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the verifier's users to a users file (mode 0600), e.g. for a terminal's verifier.kind: local.")

    @OptionGroup var target: VerifierDatabaseTarget
    @Option(help: "The users file to write (replaced atomically).") var usersFile: String

    func run() async throws {
        let (records, site) = try await target.withStore { opened in
            try await VerifierUserCommand.applying(opened) { (try await opened.administration.records(), try await opened.administration.siteRules()) }
        }
        let text = UsersFile.text(for: records, site: site, header: "KioskPad users, exported by `kioskpad verifier export` (hashes only, never a PIN)")
        do {
            try DurableFile.replace(path: usersFile, contents: Array(text.utf8))
        } catch {
            throw KeyedError(key: "--users-file", message: "cannot write \(usersFile): \(error)", kind: .unavailable(retryable: false))
        }
        writeLine("exported \(records.count) line\(records.count == 1 ? "" : "s") to \(usersFile)")
    }
}

/// `kioskpad verifier backup --to FILE`: a consistent copy while the server writes.
struct VerifierBackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Write a consistent copy of the verifier's SQLite database to a new file, while the server runs.",
        discussion: "Restore: stop the verifier, copy the backup over server.sqlite.path (same owner, mode 0600), start it. PostgreSQL: use pg_dump.")

    @OptionGroup var target: VerifierDatabaseTarget
    @Option(help: "The new file to write (must not exist).") var to: String

    func run() async throws {
        let destination = URL(fileURLWithPath: to).standardizedFileURL.path
        try await target.withStore { opened in
            guard let backup = opened.backup else {
                throw KeyedError(
                    key: "server.store", message: "is postgres: back it up with pg_dump (docs/site-server.md, \"Many doors: the verifier on PostgreSQL\")")
            }
            try await VerifierUserCommand.applying(opened) { try await backup(destination) }
        }
        writeLine("backup of the verifier's database written to \(destination)")
    }
}
