import ArgumentParser
import Foundation
import KioskPadAccess
import KioskPadCommandLine
import KioskPadCore
import KioskPadStorage
import SiteAssembly
import SiteCore

/// `kioskpad verifier token`: the management API's tokens (`/api/v1/`, docs/api.md).
struct VerifierTokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token", abstract: "Make, list and revoke tokens for the management API (/api/v1/).",
        subcommands: [Create.self, List.self, Revoke.self])

    /// `token create NAME --scope read,users [--expires 90d]`: the token printed once.
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a token; it is printed once and stored only as its SHA-256.",
            discussion:
                "Scopes: read (every GET), users (users and cards), codes (one-time and enrolment codes), doors (modes, alerts, holidays, schedules), webhooks (subscriptions and deliveries)."
        )
        @Argument(help: "Token name, as the audit shows its changes: 1-64 of letters, digits, '.', '_' or '-'.") var name: String
        @Option(help: "Comma-separated scopes: read, users, codes, doors, webhooks.") var scope: String
        @Option(help: "The token's role, which its scopes narrow (kioskpad verifier roles): \(SiteRole.allCases.map(\.name).joined(separator: ", ")).")
        var role: String = SiteRole.administrator.name
        @Option(help: "Expires after this long: a number with d or h (1h to 3650d); none by default.") var expires: String?
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let scopes: Set<APIScope>
            let tokenRole: SiteRole
            do {
                scopes = try APIScope.parse(scope)
                tokenRole = try SiteRole.parse(role, field: "--role")
            } catch { throw UsageError(description: "\(error)") }
            var until: Date?
            if let expires {
                guard let seconds = Self.parseLifetime(expires) else {
                    throw UsageError(description: "--expires '\(expires)' must be a number with d or h, from 1h to 3650d")
                }
                until = Date().addingTimeInterval(seconds)
            }
            let secret = try await target.withStore { opened in
                try await VerifierUserCommand.applying(opened) {
                    let changes = AdministratorChanges(store: opened.store, by: .commandLine())
                    do {
                        return try await APITokenAdministration(store: opened.tokens, changes: changes).create(
                            name: name, scopes: scopes, role: tokenRole, expires: until)
                    } catch let problem as APITokenProblem {
                        throw UserEditError(description: problem.description)
                    }
                }
            }
            writeLine(secret)
            FileHandle.standardError.write(
                Data("token '\(name)' made (\(tokenRole.name); \(scopes.sorted().map(\.rawValue).joined(separator: ","))); it is shown only now\n".utf8))
        }

        static func parseLifetime(_ text: String) -> TimeInterval? {
            guard let unit = text.last, let number = Double(text.dropLast()), number > 0 else { return nil }
            let seconds: Double
            switch unit {
            case "h": seconds = number * 3_600
            case "d": seconds = number * 86_400
            default: return nil
            }
            return (3_600...(3_650 * 86_400)).contains(seconds) ? seconds : nil
        }
    }

    /// `token list`: names, scopes, state, last use; never a token.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the tokens: name, role, scopes, made by, expiry, state and last use.")
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let tokens = try await target.withStore { opened in try await VerifierUserCommand.applying(opened) { try await opened.tokens.tokens() } }
            let now = Date()
            for token in tokens {
                let state = token.revoked != nil ? "revoked" : token.isLive(at: now) ? "live" : "expired"
                let stamp = { (date: Date?) in date.map { UTCTimestamp.rfc3339($0) } ?? "-" }
                writeLine(
                    "\(token.name)\t\(token.role.name)\t\(token.scopes.sorted().map(\.rawValue).joined(separator: ","))\t\(token.createdBy)\texpires=\(stamp(token.expires))\t\(state)\tlast_used=\(stamp(token.lastUsed))"
                )
            }
        }
    }

    /// `token revoke NAME`: refused at once from then on.
    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a token; requests with it are refused (401) at once.")
        @Argument(help: "Token name.") var name: String
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            try await target.withStore { opened in
                try await VerifierUserCommand.applying(opened) {
                    do {
                        try await APITokenAdministration(store: opened.tokens, changes: AdministratorChanges(store: opened.store, by: .commandLine())).revoke(
                            name: name)
                    } catch let problem as APITokenProblem {
                        throw UserEditError(description: problem.description)
                    }
                }
            }
            writeLine("token '\(name)' revoked")
        }
    }
}
