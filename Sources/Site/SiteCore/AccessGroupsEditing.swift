import Foundation
import KioskPadAccess
import KioskPadCore

/// What a row of `kioskpad_access_groups` is.
public enum AccessGroupKind: String, Sendable, CaseIterable {
    case doorGroup = "door_group"
    case level
    case userGroup = "user_group"

    /// The audit action of setting one.
    public var setAction: AdministratorAction {
        switch self {
        case .doorGroup: .doorGroupSet
        case .level: .levelSet
        case .userGroup: .userGroupSet
        }
    }

    /// The audit action of removing one.
    public var removeAction: AdministratorAction {
        switch self {
        case .doorGroup: .doorGroupRemove
        case .level: .levelRemove
        case .userGroup: .userGroupRemove
        }
    }

    /// As the command line and messages name it.
    public var noun: String {
        switch self {
        case .doorGroup: "door group"
        case .level: "access level"
        case .userGroup: "user group"
        }
    }
}

/// The checks every change of door groups, access levels and user groups shares, whichever
/// way it comes (command line, console, API, users import).
public enum AccessGroupsEditing {
    /// Refuses `rule` when it names a schedule, level or group `site` does not have.
    public static func check(_ rule: AccessRule, in site: SiteRules, location: String) throws {
        if let schedule = rule.scheduleNames.first(where: { site.schedules[$0] == nil }) {
            throw UserEditError(
                description:
                    "--schedule \(schedule): no such schedule in \(location) (add it with `kioskpad verifier schedule set \(schedule) SPEC`, or use always)"
            )
        }
        if let level = rule.levels.first(where: { site.access.levels[$0] == nil }) {
            throw UserEditError(description: "--levels \(level): no such access level in \(location) (add it with `kioskpad verifier level set \(level) ...`)")
        }
        if let group = rule.groups.first(where: { site.access.userGroups[$0] == nil }) {
            throw UserEditError(description: "--groups \(group): no such user group in \(location) (add it with `kioskpad verifier group set \(group) ...`)")
        }
    }

    /// Who names `name` of `kind` in `site` (users, levels, groups), as a sentence; nil when nothing does.
    static func users(of kind: AccessGroupKind, _ name: String, in site: SiteRules) -> String? {
        let names: [String]
        switch kind {
        case .doorGroup: names = site.access.levels.filter { $0.value.doorGroups.contains(name) }.keys.sorted().map { "access level \($0)" }
        case .level:
            names =
                site.access.userGroups.filter { $0.value.levels.contains(name) }.keys.sorted().map { "user group \($0)" }
                + site.rules.filter { $0.value.levels.contains(name) }.keys.sorted().map { "user \($0)" }
        case .userGroup: names = site.rules.filter { $0.value.groups.contains(name) }.keys.sorted().map { "user \($0)" }
        }
        return names.isEmpty ? nil : names.joined(separator: ", ")
    }
}

extension SiteRulesEditing {
    /// Adds or replaces the door group `name`.
    public func setDoorGroup(name: String, _ group: DoorGroup) async throws {
        try Self.checkName(name, kind: .doorGroup)
        guard !group.doors.isEmpty else { throw UserEditError(description: "--doors: a door group needs at least one door (a terminal_id)") }
        try await editSite { try await $0.writeAccessGroup(kind: .doorGroup, name: name, definition: group.fields) }
    }

    /// Adds or replaces the access level `name`; refused when it names a door group or a
    /// schedule the site does not have, or no door at all.
    public func setLevel(name: String, _ level: AccessLevel) async throws {
        try Self.checkName(name, kind: .level)
        guard !level.doors.isEmpty || !level.doorGroups.isEmpty else {
            throw UserEditError(description: "access level \(name): give --doors or --door-groups (a level opens at least one door)")
        }
        let location = self.location
        try await editSite { transaction in
            let site = try await transaction.readSite()
            if let group = level.doorGroups.first(where: { site.access.doorGroups[$0] == nil }) {
                throw UserEditError(
                    description:
                        "--door-groups \(group): no such door group in \(location) (add it with `kioskpad verifier door-group set \(group) --doors ...`)")
            }
            if let schedule = level.schedule, site.schedules[schedule] == nil {
                throw UserEditError(
                    description:
                        "--schedule \(schedule): no such schedule in \(location) (add it with `kioskpad verifier schedule set \(schedule) SPEC`, or use always)"
                )
            }
            try await transaction.writeAccessGroup(kind: .level, name: name, definition: level.fields)
        }
    }

    /// Adds or replaces the user group `name`; refused when it names a level the site does not have.
    public func setUserGroup(name: String, _ group: UserGroup) async throws {
        try Self.checkName(name, kind: .userGroup)
        let location = self.location
        try await editSite { transaction in
            let site = try await transaction.readSite()
            if let level = group.levels.first(where: { site.access.levels[$0] == nil }) {
                throw UserEditError(
                    description: "--levels \(level): no such access level in \(location) (add it with `kioskpad verifier level set \(level) ...`)")
            }
            try await transaction.writeAccessGroup(kind: .userGroup, name: name, definition: group.fields)
        }
    }

    /// Removes a door group, level or user group nothing names; one in use is refused, naming who uses it.
    public func removeAccessGroup(kind: AccessGroupKind, name: String) async throws {
        let location = self.location
        try await editSite { transaction in
            let site = try await transaction.readSite()
            let exists: Bool
            switch kind {
            case .doorGroup: exists = site.access.doorGroups[name] != nil
            case .level: exists = site.access.levels[name] != nil
            case .userGroup: exists = site.access.userGroups[name] != nil
            }
            guard exists else { throw UserEditError(description: "no \(kind.noun) '\(name)' in \(location)") }
            if let users = AccessGroupsEditing.users(of: kind, name, in: site) {
                throw UserEditError(description: "\(kind.noun) '\(name)' is used by \(users); take it from them first")
            }
            try await transaction.writeAccessGroup(kind: kind, name: name, definition: nil)
        }
    }

    private static func checkName(_ name: String, kind: AccessGroupKind) throws {
        guard Identifier.isValid(name) else {
            throw UserEditError(description: "\(kind.noun) name '\(name)' must be 1-64 of letters, digits, '.', '_' or '-'")
        }
    }
}
