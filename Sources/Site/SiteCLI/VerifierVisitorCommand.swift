import ArgumentParser
import Foundation
import KioskPadAccess
import KioskPadCommandLine
import KioskPadCore
import KioskPadStorage
import SiteAssembly
import SiteConfig
import SiteCore

/// `kioskpad verifier visitor`: visitor passes (docs/site-server.md, "Visitor passes").
struct VerifierVisitorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "visitor", abstract: "Issue, list and revoke visitor passes: a code for a visitor, with a host, a window and a number of uses.",
        subcommands: [Issue.self, List.self, Revoke.self])

    /// Passes issued and revoked by the command line's user, as the audit names them.
    static func issuing(_ opened: OpenedVerifierStore, _ settings: VerifierServerConfiguration) throws -> VisitorPassIssuing {
        VisitorPassIssuing(
            administration: opened.administration, changes: AdministratorChanges(store: opened.store, by: .commandLine()),
            codeLength: settings.codeLength, limits: VerifierAssembly.visitorPassLimits(settings), lookupKey: try VerifierAssembly.lookupKey(settings))
    }

    /// `visitor issue --visitor NAME --host USER --doors ... --until ...`: the code printed once.
    struct Issue: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Issue a visitor pass; its code is printed once and stored only as a salted hash.",
            discussion: """
                A pass is decided by the site only: a door deciding offline refuses it, so no pass is used \
                more times than it allows. Times are in the site's time zone (`verifier site`).
                """)
        @Option(help: "The visitor's name, as the pass and the audit show it (1-64 letters, digits, spaces, '.', ''', '-', '_').")
        var visitor: String
        @Option(help: "The user the visitor comes to see (a user of the site).") var host: String
        @Option(help: "Doors (terminal_id, comma-separated) the pass opens.") var doors: String?
        @Option(help: "Access levels (comma-separated) whose doors the pass opens, each in its own schedule.") var levels: String?
        @Option(help: "Only in this schedule's windows, at --doors (a level keeps its own schedule).") var schedule: String?
        @Option(name: .customLong("from"), help: "Valid from YYYY-MM-DD or YYYY-MM-DDTHH:MM; default now.") var validFrom: String?
        @Option(name: .customLong("until"), help: "Valid until YYYY-MM-DDTHH:MM (or YYYY-MM-DD: to the end of that day).") var validUntil: String
        @Option(help: "How many entries it allows (1-10000), or 'unlimited' within its window.") var uses: String = "1"
        @OptionGroup var target: VerifierDatabaseTarget

        func request() throws -> VisitorPassRequest {
            let list = { (text: String?, option: String) throws -> [String] in
                guard let text else { return [] }
                let items = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                if let bad = items.first(where: { !Identifier.isValid($0) }) {
                    throw ValidationError("\(option) '\(bad)' must be 1-64 of letters, digits, '.', '_' or '-'")
                }
                return items
            }
            let date = { (text: String, option: String) throws -> SiteDate in
                guard let date = SiteDate(parsing: text) else { throw ValidationError("\(option) '\(text)' is not \(SiteDate.format)") }
                return date
            }
            var maxUses: Int?
            if uses != "unlimited" {
                guard let count = Int(uses), VisitorPassRequest.usesRange.contains(count) else {
                    throw ValidationError("--uses '\(uses)' must be a number from 1 to \(VisitorPassRequest.usesRange.upperBound), or unlimited")
                }
                maxUses = count
            }
            return VisitorPassRequest(
                visitor: visitor, host: host, doors: try list(doors, "--doors"), levels: try list(levels, "--levels"), schedule: schedule,
                validFrom: try validFrom.map { try date($0, "--from") }, validUntil: try date(validUntil, "--until"), maxUses: maxUses)
        }

        func validate() throws {
            _ = try request()
        }

        func run() async throws {
            let request = try request()
            let settings = try target.settings()
            let issued = try await target.withStore(settings) { opened in
                try await VerifierUserCommand.applying(opened) {
                    let issued: VisitorPassIssuing.Issued
                    do {
                        issued = try await VerifierVisitorCommand.issuing(opened, settings).issue(request, now: Date())
                    } catch let error as UserEditError {
                        throw UserEditError(description: Self.optionNamed(error.description))
                    }
                    return issued
                }
            }
            VerifierDatabaseTarget.warn(issued.notes)
            writeLine(issued.code)
            FileHandle.standardError.write(
                Data(
                    "visitor pass \(issued.pass.id) for \(issued.pass.visitor) (host \(issued.pass.host)): \(issued.pass.whereText), \(Self.window(issued.pass.rule)), uses \(issued.pass.usesText); the code is shown only now\n"
                        .utf8))
        }

        /// A problem as the core names its field (`valid_until: ...`), with this command's option instead.
        static func optionNamed(_ problem: String) -> String {
            let options = ["valid_until": "--until", "valid_from": "--from", "max_uses": "--uses"]
            guard let colon = problem.firstIndex(of: ":") else { return problem }
            let field = String(problem[..<colon])
            return (options[field] ?? "--" + field) + problem[colon...]
        }

        static func window(_ rule: AccessRule) -> String {
            "\(rule.validFrom.map { "\($0)" } ?? "now") to \(rule.validUntil.map { "\($0)" } ?? "-")"
        }
    }

    /// `visitor list [--all]`: the passes, never a code.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List visitor passes: id, visitor, host, where, window, uses, state (the ones ended in the last 30 days too with --all).")
        @Flag(help: "Also the passes ended (revoked, used up or expired) in the last 30 days.") var all = false
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let now = Date()
            let since = all ? now.addingTimeInterval(-30 * 86_400) : now.addingTimeInterval(-86_400)
            let (passes, zone) = try await target.withStore { opened in
                try await VerifierUserCommand.applying(opened) { try await opened.administration.visitorPasses(since: since) }
            }
            for pass in passes {
                let state = pass.state(at: now, zone: zone)
                guard all || ![.revoked, .usedUp, .expired].contains(state) else { continue }
                writeLine(
                    "\(pass.id)\t\(pass.visitor)\thost=\(pass.host)\t\(pass.whereText)\t\(Issue.window(pass.rule))\tuses=\(pass.usesText)\t\(state.rawValue)"
                )
            }
        }
    }

    /// `visitor revoke ID`: refused at every door from then on.
    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a visitor pass; it opens no door from then on.")
        @Argument(help: "The pass's id (`visitor list`).") var id: Int64
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let settings = try target.settings()
            try await target.withStore(settings) { opened in
                try await VerifierUserCommand.applying(opened) {
                    try await VerifierVisitorCommand.issuing(opened, settings).revoke(id: id, now: Date())
                }
            }
            writeLine("visitor pass \(id) revoked")
        }
    }
}
