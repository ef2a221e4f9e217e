import Foundation
import KioskPadCore

/// Who may use which door when, for one user: their own grant (doors, nil: every door, in a
/// named schedule, nil: always), the access levels given to them directly and through their
/// user groups (``AccessLevels``), a validity window in the site's time zone, whether the
/// user is switched off, and whether they are a responder (who may still enter in a
/// lockdown). A user without a rule has the default: every door, always, no end.
///
/// A user with levels or groups has an own grant only when ``doors`` is set (an empty list:
/// none); their access is the union of the own grant and the levels.
public struct AccessRule: Sendable, Equatable {
    /// The `terminal_id`s of the user's own grant, sorted; nil means every door (or, for a
    /// user with levels or groups, no own grant).
    public var doors: [String]?
    /// The own grant's schedule; nil means always. A rule compiled for one door
    /// (``AccessLevels/rule(_:at:)``) may name several, comma-separated: any of them admits.
    public var schedule: String?
    /// Access levels given to the user directly, sorted.
    public var levels: [String]
    /// User groups the user is in, sorted; each gives its levels.
    public var groups: [String]
    public var validFrom: SiteDate?
    public var validUntil: SiteDate?
    public var disabled: Bool
    /// Enters during a lockdown (security, first aid, the fire brigade's key holder).
    public var responder: Bool
    /// Staff: their first entry of the day starts a first-in door's unlock schedule.
    public var staff: Bool

    public init(
        doors: [String]? = nil, schedule: String? = nil, validFrom: SiteDate? = nil, validUntil: SiteDate? = nil, disabled: Bool = false,
        responder: Bool = false, staff: Bool = false, levels: [String] = [], groups: [String] = []
    ) {
        self.staff = staff
        self.levels = Array(Set(levels)).sorted()
        self.groups = Array(Set(groups)).sorted()
        self.doors = doors.map { Array(Set($0)).sorted() }
        self.schedule = schedule
        self.validFrom = validFrom
        self.validUntil = validUntil
        self.disabled = disabled
        self.responder = responder
    }

    /// Every door, always, valid, enabled: what a user without a rule has.
    public var isDefault: Bool { self == AccessRule() }

    /// Whether deciding needs the wall clock (a schedule or a validity bound). For a rule with
    /// levels, ask the rule compiled for the door (a level's schedule needs it too).
    public var needsClock: Bool { schedule != nil || validFrom != nil || validUntil != nil }

    /// Whether the rule gives access through levels or groups (it is compiled per door before deciding).
    public var usesLevels: Bool { !levels.isEmpty || !groups.isEmpty }

    /// Whether the user has a grant of their own (``doors`` in ``schedule``): always without
    /// levels or groups; with them, only when doors are listed.
    public var hasOwnGrant: Bool { doors != nil || !usesLevels }

    /// The schedules ``schedule`` names (one, or for a compiled rule any of several).
    public var scheduleNames: [String] { schedule.map { $0.split(separator: ",").map(String.init) } ?? [] }

    /// A rule as `user list` and the users file write it: `doors=a,b schedule=x valid_from=...
    /// valid_until=... disabled responder staff`, leaving out what is the default (empty for the default).
    public var fields: [String] {
        var fields: [String] = []
        if let doors { fields.append("doors=" + doors.joined(separator: ",")) }
        if let schedule { fields.append("schedule=" + schedule) }
        if !levels.isEmpty { fields.append("levels=" + levels.joined(separator: ",")) }
        if !groups.isEmpty { fields.append("groups=" + groups.joined(separator: ",")) }
        if let validFrom { fields.append("valid_from=\(validFrom)") }
        if let validUntil { fields.append("valid_until=\(validUntil)") }
        if disabled { fields.append("disabled") }
        if responder { fields.append("responder") }
        if staff { fields.append("staff") }
        return fields
    }

    /// A rule from its ``fields``; an error names the field and what would be valid.
    public init(fields: [Substring]) throws {
        self.init()
        for field in fields {
            let (key, value) = field.firstIndex(of: "=").map { (field[..<$0], String(field[field.index(after: $0)...])) } ?? (field, "")
            switch key {
            case "doors": doors = try Self.doors(value, option: "doors=")
            case "schedule":
                guard value.split(separator: ",", omittingEmptySubsequences: false).allSatisfy({ Identifier.isValid(String($0)) }) else {
                    throw RuleError(description: "schedule=\(value): a schedule name is 1-64 of letters, digits, '.', '_' or '-'")
                }
                schedule = value == "always" ? nil : value
            case "levels": levels = try Self.names(value, option: "levels=", of: "an access level")
            case "groups": groups = try Self.names(value, option: "groups=", of: "a user group")
            case "valid_from", "valid_until":
                guard let date = SiteDate(parsing: value) else { throw RuleError(description: "\(key)=\(value) is not \(SiteDate.format)") }
                if key == "valid_from" { validFrom = date } else { validUntil = date }
            case "disabled" where value.isEmpty: disabled = true
            case "responder" where value.isEmpty: responder = true
            case "staff" where value.isEmpty: staff = true
            default:
                throw RuleError(
                    description:
                        "'\(field)' is not a rule; valid: doors=ID,ID schedule=NAME levels=NAME,NAME groups=NAME,NAME valid_from=DATE valid_until=DATE disabled responder staff"
                )
            }
        }
    }

    /// A comma list of door ids (terminal_id), each checked; empty for no door.
    public static func doors(_ text: String, option: String) throws -> [String] {
        guard !text.isEmpty else { return [] }
        let doors = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0.trimmingSpaces) }
        for door in doors where !Identifier.isValid(door) {
            throw RuleError(description: "\(option)\(text): '\(door)' is not a door id (a terminal_id: 1-64 of letters, digits, '.', '_' or '-')")
        }
        return Array(Set(doors)).sorted()
    }

    /// A comma list of names (levels, groups), each checked; empty for none.
    public static func names(_ text: String, option: String, of what: String) throws -> [String] {
        guard !text.isEmpty else { return [] }
        let names = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0.trimmingSpaces) }
        for name in names where !Identifier.isValid(name) {
            throw RuleError(description: "\(option)\(text): '\(name)' is not \(what)'s name (1-64 of letters, digits, '.', '_' or '-')")
        }
        return Array(Set(names)).sorted()
    }

    /// A rule that cannot be read, naming the part.
    public struct RuleError: Error, Equatable, CustomStringConvertible {
        public let description: String

        public init(description: String) {
            self.description = description
        }
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs (cheaper than Foundation's trimming,
    /// which a stored rule's parse would pay per field).
    var trimmingSpaces: Substring {
        let isSpace = { (character: Character) in character == " " || character == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return self[endIndex...] }
        return self[first...last]
    }
}
