import ArgumentParser
import Foundation
import KioskPadAccess
import KioskPadCommandLine
import KioskPadCore
import SiteCore

/// The options that set a user's access rule (`user add` and `user set`), checked before
/// anything is changed.
struct AccessRuleOptions: ParsableArguments {
    @Option(help: "The doors (terminal_id) the user may open, comma-separated, or none; default: every door (none with --levels or --groups).")
    var doors: String?
    @Flag(help: "The user may open every door (`user set` only).")
    var allDoors = false
    @Option(help: "A schedule's name (`kioskpad verifier schedule set`), or always (the default).")
    var schedule: String?
    @Option(help: "First day or moment the user is valid, in the site's time zone: YYYY-MM-DD or YYYY-MM-DDTHH:MM (none: no start).")
    var validFrom: String?
    @Option(help: "Last day (through its end) or the moment the user stops being valid: YYYY-MM-DD or YYYY-MM-DDTHH:MM (none: no end).")
    var validUntil: String?
    @Option(help: "Access levels given to the user directly, comma-separated (`kioskpad verifier level set`), or none.")
    var levels: String?
    @Option(help: "User groups the user is in, comma-separated (`kioskpad verifier group set`), or none.")
    var groups: String?
    @Option(help: "yes: the user still enters doors in lockdown (security, first aid); no: they do not (the default).")
    var responder: String?
    @Option(help: "yes: the user's first entry of the day starts a first-in door's unlock schedule; no (the default).")
    var staff: String?

    func validate() throws {
        if allDoors && doors != nil { throw ValidationError("--doors and --all-doors: give one") }
        _ = try patch()
    }

    /// Whether any option was given.
    var isEmpty: Bool {
        doors == nil && !allDoors && schedule == nil && validFrom == nil && validUntil == nil && responder == nil && staff == nil && levels == nil
            && groups == nil
    }

    /// The change these options make to a rule; an error names the option and what is valid.
    func patch() throws -> AccessRulePatch {
        var doors: [String]??
        if allDoors {
            doors = .some(nil)
        } else if let list = self.doors {
            doors = .some(list == "none" ? [] : try Self.doorList(list))
        }
        var schedule: String??
        if let name = self.schedule {
            guard Identifier.isValid(name) else {
                throw ValidationError("--schedule \(name): a schedule name is 1-64 of letters, digits, '.', '_' or '-', or always")
            }
            schedule = .some(name == "always" ? nil : name)
        }
        let from: SiteDate?? = try validFrom.map { try Self.date($0, option: "--valid-from") }
        let until: SiteDate?? = try validUntil.map { try Self.date($0, option: "--valid-until") }
        if case (let start??, let end??) = (from, until), start.start >= end.end {
            throw ValidationError("--valid-from \(start) is not before --valid-until \(end)")
        }
        var isResponder: Bool?
        if let responder {
            guard ["yes", "no"].contains(responder) else { throw ValidationError("--responder \(responder): give yes or no") }
            isResponder = responder == "yes"
        }
        var isStaff: Bool?
        if let staff {
            guard ["yes", "no"].contains(staff) else { throw ValidationError("--staff \(staff): give yes or no") }
            isStaff = staff == "yes"
        }
        let newLevels = try levels.map { $0 == "none" ? [] : try Self.names($0, option: "--levels ", of: "an access level") }
        let newGroups = try groups.map { $0 == "none" ? [] : try Self.names($0, option: "--groups ", of: "a user group") }
        return AccessRulePatch(
            doors: doors, schedule: schedule, levels: newLevels, groups: newGroups, validFrom: from, validUntil: until, responder: isResponder,
            staff: isStaff)
    }

    static func doorList(_ text: String) throws -> [String] {
        do {
            return try AccessRule.doors(text, option: "--doors ")
        } catch let error as AccessRule.RuleError {
            throw ValidationError(error.description)
        }
    }

    /// A comma list of names (levels, groups, door groups), each checked.
    static func names(_ text: String, option: String, of what: String) throws -> [String] {
        do {
            return try AccessRule.names(text, option: option, of: what)
        } catch let error as AccessRule.RuleError {
            throw ValidationError(error.description)
        }
    }

    /// A date option: a ``SiteDate``, or `none` to clear it.
    static func date(_ text: String, option: String) throws -> SiteDate? {
        if text == "none" { return nil }
        guard let date = SiteDate(parsing: text) else { throw ValidationError("\(option) \(text) is not \(SiteDate.format), or none") }
        return date
    }
}

/// `kioskpad verifier schedule`: named weekly time windows for users' access.
struct VerifierScheduleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule", abstract: "Add, list and remove named weekly schedules (in the site's time zone).",
        subcommands: [SetSchedule.self, List.self, Remove.self])

    /// `schedule set NAME SPEC`: adds or replaces a schedule.
    struct SetSchedule: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Add or replace a schedule, e.g. cleaning \"mon-fri 18:00-21:00; sat 08:00-12:00\".",
            discussion: "SPEC: \(WeeklySchedule.grammar). A window whose end is before its start runs past midnight into the next day.")
        @Argument(help: "Schedule name: 1-64 of letters, digits, '.', '_' or '-'.") var name: String
        @Argument(help: "The weekly windows.") var spec: String
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            try await target.doorRules { try await $0.setSchedule(name: name, spec: spec) }
            writeLine("schedule '\(name)' set")
        }
    }

    /// `schedule list`: every schedule and how many users have it.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List schedules, their windows and how many users have each.")
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let site = try await target.administer { try await $0.siteRules() }
            writeLine("time zone \(site.timeZone ?? "(host)")")
            for (name, spec) in site.schedules.sorted(by: { $0.key < $1.key }) {
                let users = site.rules.values.filter { $0.schedule == name }.count
                writeLine("\(name) \"\(spec)\" (\(users) user\(users == 1 ? "" : "s"))")
            }
        }
    }

    /// `schedule remove NAME`: only while no user has it.
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a schedule that no user has.")
        @Argument(help: "Schedule name.") var name: String
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            try await target.doorRules { try await $0.removeSchedule(name: name) }
            writeLine("schedule '\(name)' removed")
        }
    }
}

/// `kioskpad verifier site`: the site-wide settings kept in the database.
struct VerifierSiteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "site", abstract: "Show or set the site's time zone (schedules and validity dates are in it).",
        subcommands: [Show.self, SetZone.self])

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the site's time zone.")
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let site = try await target.administer { try await $0.siteRules() }
            writeLine("time_zone \(site.timeZone ?? "(none)")")
        }
    }

    struct SetZone: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Set the site's IANA time zone (default: the host's at the first migrate); every instance decides in it.")
        @Option(help: "An IANA zone, e.g. Europe/Berlin.") var timeZone: String
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            try await target.doorRules { try await $0.setTimeZone(timeZone) }
            writeLine("site time zone set to \(timeZone)")
        }
    }
}

/// `kioskpad verifier terminal`: doors with a signing secret of their own.
struct VerifierTerminalCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "terminal",
        abstract: "Give a door (terminal_id) its own signing secret, list them, revoke one.",
        discussion: """
            A door with its own secret must sign with it: the site secret is refused for it, so no other \
            terminal can claim to be that door. Doors without one keep signing with the site secret.
            """,
        subcommands: [
            Add.self, List.self, Remove.self, Status.self, Waiting.self, Adopt.self, Rotate.self, Retire.self, RemoteUnlock.self, RemoteLock.self,
            Commands.self,
        ])

    /// `terminal status`: every door seen through its forwarded records.
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show every terminal that forwarded events (events.url to /v1/events): last seen, door, keypad, tamper, lockout, last decision, alerts.")
        @OptionGroup var target: VerifierDatabaseTarget
        @Option(help: "A terminal not heard from for this long is silent (30s to 168h; terminals send a status every events.heartbeat_s).")
        var silentAfter = "15m"

        func run() async throws {
            guard let silent = VerifierCodeIssueCommand.parseTTL(silentAfter) else {
                throw UsageError(description: "--silent-after '\(silentAfter)' must be a number with s, m or h, from 30s to 168h")
            }
            let doors = try await target.withStore { opened in
                try await VerifierUserCommand.applying(opened) { try await opened.store.recentEvents(perTerminal: 500) }
            }
            let now = Date()
            let formatter = ISO8601DateFormatter()
            for door in doors {
                guard let view = DoorView.fold(terminal: door.terminal, newestFirst: door.newestFirst, now: now, silentAfter: silent) else { continue }
                let last = view.lastDecision.map { decision in decision + (view.lastUser.map { "(\($0))" } ?? "") } ?? "none"
                writeLine(
                    """
                    \(view.terminalID) seen \(formatter.string(from: view.lastSeen)) (\(Int(now.timeIntervalSince(view.lastSeen))) s ago) \
                    door=\(view.door) keypad=\(view.keypad) tamper=\(view.tamper) locked_out=\(view.lockedOut) last=\(last) \
                    alerts=\(view.alerts.isEmpty ? "none" : view.alerts.joined(separator: ","))
                    """)
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a new whsec_ secret for door ID and print it once: put it in that terminal's verifier.secret_file.")
        @Argument(help: "The door's terminal_id.") var id: String
        @OptionGroup var target: VerifierDatabaseTarget

        func validate() throws {
            guard Identifier.isValid(id) else { throw ValidationError("terminal id '\(id)' must be 1-64 of letters, digits, '.', '_' or '-'") }
        }

        func run() async throws {
            let secret = try await target.doorKeys { try await $0.add(terminalID: id) }
            writeLine(secret.text)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the doors that have their own secret (never the secret): hand-given, adopted, rotating or retired.")
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let doors = try await target.administer { try await $0.doors() }
            for door in doors { writeLine("\(door.terminalID) own secret since \(door.createdAt) (\(door.standing.rawValue))") }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke door ID's own secret at once (it then signs with the site secret again).")
        @Argument(help: "The door's terminal_id.") var id: String
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            try await target.doorKeys { try await $0.remove(terminalID: id) }
            writeLine("secret of door '\(id)' revoked")
        }
    }
}
