import KioskPadCore

/// A named set of doors (`ground-floor`, `workshop`), which access levels name instead of
/// listing each door.
public struct DoorGroup: Sendable, Equatable {
    /// `terminal_id`s, sorted.
    public var doors: [String]

    public init(doors: [String]) {
        self.doors = Array(Set(doors)).sorted()
    }

    /// `doors=ID,ID` as the users file and the database keep it.
    public var fields: [String] { ["doors=" + doors.joined(separator: ",")] }

    public init(fields: [Substring]) throws {
        self.init(doors: [])
        for field in fields {
            let (key, value) = AccessRule.split(field)
            guard key == "doors" else { throw AccessRule.RuleError(description: "'\(field)' is not part of a door group; valid: doors=ID,ID") }
            doors = try AccessRule.doors(value, option: "doors=")
        }
    }
}

/// Doors (listed, and through door groups) in a schedule (nil: always): what a user given
/// the level, directly or through a user group, may open.
public struct AccessLevel: Sendable, Equatable {
    /// `terminal_id`s, sorted.
    public var doors: [String]
    /// Door groups' names, sorted.
    public var doorGroups: [String]
    public var schedule: String?

    public init(doors: [String] = [], doorGroups: [String] = [], schedule: String? = nil) {
        self.doors = Array(Set(doors)).sorted()
        self.doorGroups = Array(Set(doorGroups)).sorted()
        self.schedule = schedule
    }

    /// `doors=ID,ID door_groups=NAME,NAME schedule=NAME`, leaving out what is empty.
    public var fields: [String] {
        var fields: [String] = []
        if !doors.isEmpty { fields.append("doors=" + doors.joined(separator: ",")) }
        if !doorGroups.isEmpty { fields.append("door_groups=" + doorGroups.joined(separator: ",")) }
        if let schedule { fields.append("schedule=" + schedule) }
        return fields
    }

    public init(fields: [Substring]) throws {
        self.init()
        for field in fields {
            let (key, value) = AccessRule.split(field)
            switch key {
            case "doors": doors = try AccessRule.doors(value, option: "doors=")
            case "door_groups": doorGroups = try AccessRule.names(value, option: "door_groups=", of: "a door group")
            case "schedule":
                guard Identifier.isValid(value) else {
                    throw AccessRule.RuleError(description: "schedule=\(value): a schedule name is 1-64 of letters, digits, '.', '_' or '-'")
                }
                schedule = value == "always" ? nil : value
            default:
                throw AccessRule.RuleError(description: "'\(field)' is not part of an access level; valid: doors=ID,ID door_groups=NAME,NAME schedule=NAME")
            }
        }
    }
}

/// Users gathered under one name (`staff`, `cleaners`), each given the group's access
/// levels; a disabled group gives none.
public struct UserGroup: Sendable, Equatable {
    /// Access levels' names, sorted.
    public var levels: [String]
    public var disabled: Bool

    public init(levels: [String] = [], disabled: Bool = false) {
        self.levels = Array(Set(levels)).sorted()
        self.disabled = disabled
    }

    /// `levels=NAME,NAME [disabled]`.
    public var fields: [String] {
        ["levels=" + levels.joined(separator: ",")] + (disabled ? ["disabled"] : [])
    }

    public init(fields: [Substring]) throws {
        self.init()
        for field in fields {
            let (key, value) = AccessRule.split(field)
            switch key {
            case "levels": levels = try AccessRule.names(value, option: "levels=", of: "an access level")
            case "disabled" where value.isEmpty: disabled = true
            default: throw AccessRule.RuleError(description: "'\(field)' is not part of a user group; valid: levels=NAME,NAME disabled")
            }
        }
    }
}

/// One way a user may open doors: their own grant, a level given directly, or a level
/// through a user group; what "where can this user go, and why" lists.
public struct AccessGrant: Sendable, Equatable {
    /// Where the grant comes from.
    public enum Source: Sendable, Equatable, CustomStringConvertible {
        case own
        case level(String)
        case group(String, level: String)

        public var description: String {
            switch self {
            case .own: "own"
            case .level(let level): "level \(level)"
            case .group(let group, let level): "group \(group), level \(level)"
            }
        }
    }

    public let source: Source
    /// The doors it opens (nil: every door).
    public let doors: [String]?
    /// Its schedule (nil: always).
    public let schedule: String?

    public init(source: Source, doors: [String]?, schedule: String?) {
        self.source = source
        self.doors = doors
        self.schedule = schedule
    }

    public func opens(_ door: String) -> Bool { doors?.contains(door) ?? true }
}

/// A site's door groups, access levels and user groups: the tree a user's levels and groups
/// are resolved in. The one evaluator decides on a user's rule compiled for one door
/// (``rule(_:at:)``), so the server, a door's users file and a door's replica (which carries
/// only the compiled rules, never the tree) decide alike. A name that is not defined gives
/// nothing (fail secure).
public struct AccessLevels: Sendable, Equatable {
    public var doorGroups: [String: DoorGroup]
    public var levels: [String: AccessLevel]
    public var userGroups: [String: UserGroup]

    public init(doorGroups: [String: DoorGroup] = [:], levels: [String: AccessLevel] = [:], userGroups: [String: UserGroup] = [:]) {
        self.doorGroups = doorGroups
        self.levels = levels
        self.userGroups = userGroups
    }

    public var isEmpty: Bool { doorGroups.isEmpty && levels.isEmpty && userGroups.isEmpty }

    /// The doors of `level`: its own and its door groups', sorted.
    public func doors(of level: AccessLevel) -> [String] {
        Array(Set(level.doors + level.doorGroups.flatMap { doorGroups[$0]?.doors ?? [] })).sorted()
    }

    /// Every grant `rule` gives: the own grant (when it has one), each level given directly,
    /// each level of each enabled group.
    public func grants(of rule: AccessRule) -> [AccessGrant] {
        var grants: [AccessGrant] = []
        if rule.hasOwnGrant { grants.append(AccessGrant(source: .own, doors: rule.doors, schedule: rule.schedule)) }
        for name in rule.levels {
            if let level = levels[name] { grants.append(AccessGrant(source: .level(name), doors: doors(of: level), schedule: level.schedule)) }
        }
        for group in rule.groups {
            guard let found = userGroups[group], !found.disabled else { continue }
            for name in found.levels {
                if let level = levels[name] {
                    grants.append(AccessGrant(source: .group(group, level: name), doors: doors(of: level), schedule: level.schedule))
                }
            }
        }
        return grants
    }

    /// `rule` as it applies at `door`: the door alone (or no door, when no grant opens it),
    /// in the union of the schedules of the grants that open it (always, if any of them is
    /// always), with the rule's validity, disabled, responder and staff marks. A rule without
    /// levels or groups is returned as it is.
    public func rule(_ rule: AccessRule, at door: String) -> AccessRule {
        guard rule.usesLevels else { return rule }
        let opening = grants(of: rule).filter { $0.opens(door) }
        var compiled = rule
        compiled.levels = []
        compiled.groups = []
        compiled.doors = opening.isEmpty ? [] : [door]
        if opening.isEmpty || opening.contains(where: { $0.schedule == nil }) {
            compiled.schedule = nil
        } else {
            compiled.schedule = Array(Set(opening.compactMap(\.schedule))).sorted().joined(separator: ",")
        }
        return compiled
    }

    /// What `rule` names that is not defined here (a level, a group), as a sentence; nil when all is.
    public func undefined(in rule: AccessRule) -> String? {
        if let level = rule.levels.first(where: { levels[$0] == nil }) { return "access level '\(level)' is not defined" }
        if let group = rule.groups.first(where: { userGroups[$0] == nil }) { return "user group '\(group)' is not defined" }
        return nil
    }

    /// What the tree names that is not defined (a level's door group or schedule, a group's
    /// level), as a sentence; nil when all is.
    public func undefined(schedules: Set<String>) -> String? {
        for (name, level) in levels.sorted(by: { $0.key < $1.key }) {
            if let group = level.doorGroups.first(where: { doorGroups[$0] == nil }) {
                return "access level \(name): door group '\(group)' is not defined"
            }
            if let schedule = level.schedule, !schedules.contains(schedule) { return "access level \(name): schedule '\(schedule)' is not defined" }
        }
        for (name, group) in userGroups.sorted(by: { $0.key < $1.key }) {
            if let level = group.levels.first(where: { levels[$0] == nil }) { return "user group \(name): access level '\(level)' is not defined" }
        }
        return nil
    }

    /// Every schedule a level names, with the levels naming it.
    public var schedulesUsed: [String: [String]] {
        var used: [String: [String]] = [:]
        for (name, level) in levels { if let schedule = level.schedule { used[schedule, default: []].append(name) } }
        return used.mapValues { $0.sorted() }
    }
}

extension AccessRule {
    /// `key=value` (or a bare `key`) as key and value.
    static func split(_ field: Substring) -> (Substring, String) {
        field.firstIndex(of: "=").map { (field[..<$0], String(field[field.index(after: $0)...])) } ?? (field, "")
    }
}

/// What a user's grants give at one door: whether any opens it, and when (nil: always; else
/// any of these schedules, sorted).
public struct DoorAccess: Sendable, Equatable {
    public var opens: Bool
    public var schedules: [String]?

    public init(opens: Bool, schedules: [String]?) {
        self.opens = opens
        self.schedules = schedules
    }
}

/// ``AccessLevels`` made ready to decide: for each level and each enabled user group, what
/// it gives at each door it opens, so a decision is two lookups per level or group.
public struct CompiledAccessLevels: Sendable {
    /// At one door: always, or the schedules (sorted) that admit.
    struct Grant: Sendable {
        var always = false
        var schedules: [String] = []

        mutating func add(_ schedule: String?) {
            guard let schedule else {
                always = true
                return
            }
            if !schedules.contains(schedule) {
                schedules.append(schedule)
                schedules.sort()
            }
        }

        mutating func add(_ other: Grant) {
            if other.always { always = true }
            for schedule in other.schedules { add(schedule) }
        }
    }

    private let levels: [String: [String: Grant]]
    private let groups: [String: [String: Grant]]

    public init(_ tree: AccessLevels) {
        var levels: [String: [String: Grant]] = [:]
        for (name, level) in tree.levels {
            var atDoors: [String: Grant] = [:]
            for door in tree.doors(of: level) { atDoors[door, default: Grant()].add(level.schedule) }
            levels[name] = atDoors
        }
        var groups: [String: [String: Grant]] = [:]
        for (name, group) in tree.userGroups where !group.disabled {
            var atDoors: [String: Grant] = [:]
            for level in group.levels {
                for (door, grant) in levels[level] ?? [:] { atDoors[door, default: Grant()].add(grant) }
            }
            groups[name] = atDoors
        }
        self.levels = levels
        self.groups = groups
    }

    /// What `rule` gives at `door`: its own grant (when it has one) and every level, direct
    /// or through an enabled group; the same answer as ``AccessLevels/rule(_:at:)``.
    public func access(of rule: AccessRule, at door: String) -> DoorAccess {
        var found: Grant?
        func add(_ grant: Grant) {
            if found == nil { found = grant } else { found?.add(grant) }
        }
        if rule.hasOwnGrant, rule.doors?.contains(door) ?? true {
            var own = Grant()
            own.add(rule.schedule)
            add(own)
        }
        for name in rule.levels {
            if let grant = levels[name]?[door] { add(grant) }
        }
        for name in rule.groups {
            if let grant = groups[name]?[door] { add(grant) }
        }
        guard let found else { return DoorAccess(opens: false, schedules: nil) }
        return DoorAccess(opens: true, schedules: found.always ? nil : found.schedules)
    }
}
