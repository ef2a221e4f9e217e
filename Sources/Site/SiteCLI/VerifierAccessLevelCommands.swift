import ArgumentParser
import Foundation
import KioskPadAccess
import KioskPadCommandLine
import KioskPadCore
import SiteCore

/// `kioskpad verifier door-group`: named sets of doors that access levels name.
struct VerifierDoorGroupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "door-group", abstract: "Add, list and remove door groups (named sets of doors for access levels).",
        subcommands: [SetGroup.self, List.self, Remove.self])

    /// `door-group set NAME --doors A,B`.
    struct SetGroup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set", abstract: "Add or replace a door group.")
        @Argument(help: "Door group name: 1-64 of letters, digits, '.', '_' or '-'.") var name: String
        @Option(help: "The doors (terminal_id), comma-separated.") var doors: String
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let list = try AccessRuleOptions.doorList(doors)
            VerifierDatabaseTarget.warn(try await target.accessGroups { try await $0.set(name, .doorGroup(DoorGroup(doors: list))) })
            writeLine("door group '\(name)' set")
        }
    }

    /// `door-group list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List door groups and their doors.")
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let site = try await target.administer { try await $0.siteRules() }
            for (name, group) in site.access.doorGroups.sorted(by: { $0.key < $1.key }) {
                writeLine("\(name) doors=\(group.doors.joined(separator: ","))")
            }
        }
    }

    /// `door-group remove NAME`: only while no level names it.
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a door group that no access level names.")
        @Argument(help: "Door group name.") var name: String
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            try await target.accessGroups { try await $0.remove(.doorGroup, name) }
            writeLine("door group '\(name)' removed")
        }
    }
}

/// `kioskpad verifier level`: access levels (doors and door groups in a schedule).
struct VerifierLevelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "level", abstract: "Add, list and remove access levels: doors or door groups, in a schedule or always.",
        subcommands: [SetLevel.self, List.self, Remove.self])

    /// `level set NAME [--doors A,B] [--door-groups G] [--schedule S]`.
    struct SetLevel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set", abstract: "Add or replace an access level (give --doors, --door-groups or both).")
        @Argument(help: "Access level name: 1-64 of letters, digits, '.', '_' or '-'.") var name: String
        @Option(help: "Doors (terminal_id), comma-separated.") var doors: String?
        @Option(help: "Door groups, comma-separated.") var doorGroups: String?
        @Option(help: "A schedule's name, or always (the default).") var schedule: String?
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let list = try doors.map(AccessRuleOptions.doorList) ?? []
            let groups = try doorGroups.map { try AccessRuleOptions.names($0, option: "--door-groups ", of: "a door group") } ?? []
            if let schedule, !Identifier.isValid(schedule) {
                throw ValidationError("--schedule \(schedule): a schedule name is 1-64 of letters, digits, '.', '_' or '-', or always")
            }
            let level = AccessLevel(doors: list, doorGroups: groups, schedule: schedule == "always" ? nil : schedule)
            VerifierDatabaseTarget.warn(try await target.accessGroups { try await $0.set(name, .level(level)) })
            writeLine("access level '\(name)' set")
        }
    }

    /// `level list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List access levels: their doors, door groups and schedule.")
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let site = try await target.administer { try await $0.siteRules() }
            for (name, level) in site.access.levels.sorted(by: { $0.key < $1.key }) {
                writeLine("\(name) \(level.text)" + (level.schedule == nil ? " schedule=always" : ""))
            }
        }
    }

    /// `level remove NAME`: only while no group or user has it.
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove an access level that no user group or user has.")
        @Argument(help: "Access level name.") var name: String
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            try await target.accessGroups { try await $0.remove(.level, name) }
            writeLine("access level '\(name)' removed")
        }
    }
}

/// `kioskpad verifier group`: user groups, each giving its members access levels.
struct VerifierGroupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "group", abstract: "Add, list and remove user groups (users are put in them with `user set NAME --groups`).",
        subcommands: [SetGroup.self, List.self, Remove.self])

    /// `group set NAME --levels A,B [--disabled yes|no]`.
    struct SetGroup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set", abstract: "Add or replace a user group.")
        @Argument(help: "User group name: 1-64 of letters, digits, '.', '_' or '-'.") var name: String
        @Option(help: "Access levels the group's members get, comma-separated (none: no level).") var levels: String
        @Option(help: "yes: the group gives no access while disabled; no (the default).") var disabled: String = "no"
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let names = levels == "none" ? [] : try AccessRuleOptions.names(levels, option: "--levels ", of: "an access level")
            guard ["yes", "no"].contains(disabled) else { throw ValidationError("--disabled \(disabled): give yes or no") }
            let group = UserGroup(levels: names, disabled: disabled == "yes")
            _ = try await target.accessGroups { try await $0.set(name, .userGroup(group)) }
            writeLine("user group '\(name)' set")
        }
    }

    /// `group list`: each group, its levels and how many users are in it.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List user groups, their levels and how many users are in each.")
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let site = try await target.administer { try await $0.siteRules() }
            for (name, group) in site.access.userGroups.sorted(by: { $0.key < $1.key }) {
                let members = site.rules.values.filter { $0.groups.contains(name) }.count
                writeLine("\(name) \(group.text) (\(members) user\(members == 1 ? "" : "s"))")
            }
        }
    }

    /// `group remove NAME`: only while no user is in it.
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a user group no user is in.")
        @Argument(help: "User group name.") var name: String
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            try await target.accessGroups { try await $0.remove(.userGroup, name) }
            writeLine("user group '\(name)' removed")
        }
    }
}

/// `kioskpad verifier access door DOOR|user NAME`: who can open a door and through what,
/// where a user can go and why.
struct VerifierAccessCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "access", abstract: "Explain access: who can open a door and through what, or where a user can go and why.",
        subcommands: [Door.self, User.self])

    /// `access door DOOR`.
    struct Door: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every user who can open DOOR, each with the grant (own, level, group) and its schedule.")
        @Argument(help: "The door's terminal_id.") var door: String
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let (site, records) = try await target.administer { (try await $0.siteRules(), try await $0.records()) }
            let lines = AccessExplanation.door(door, site: site, users: Array(Set(records.map(\.name))), now: Date())
            for line in lines { writeLine(AccessExplanation.text(line, user: true)) }
            if lines.isEmpty { writeLine("no user can open \(door)") }
        }
    }

    /// `access user NAME`.
    struct User: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every grant of user NAME: their own, each level, each level through each group.")
        @Argument(help: "The user's name.") var name: String
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let (site, records) = try await target.administer { (try await $0.siteRules(), try await $0.records()) }
            guard records.contains(where: { $0.name == name }) else { throw UserEditError(description: "no user '\(name)'") }
            let lines = AccessExplanation.grants(of: name, site: site, now: Date())
            for line in lines { writeLine(AccessExplanation.text(line, user: false)) }
            if lines.isEmpty { writeLine("\(name) can open no door") }
        }
    }
}
