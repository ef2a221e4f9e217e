import Foundation
import KioskPadCore

/// Who may use which door when, for one user: the doors (nil: every door), a named
/// schedule (nil: always), a validity window in the site's time zone, whether the user is
/// switched off, and whether they are a responder (who may still enter in a lockdown). A user without a rule has the default: every door, always, no end.
public struct AccessRule: Sendable, Equatable {
    /// The `terminal_id`s the user may open, sorted; nil means every door.
    public var doors: [String]?
    /// A schedule's name; nil means always.
    public var schedule: String?
    public var validFrom: SiteDate?
    public var validUntil: SiteDate?
    public var disabled: Bool
    /// Enters during a lockdown (security, first aid, the fire brigade's key holder).
    public var responder: Bool
    /// Staff: their first entry of the day starts a first-in door's unlock schedule.
    public var staff: Bool

    public init(
        doors: [String]? = nil, schedule: String? = nil, validFrom: SiteDate? = nil, validUntil: SiteDate? = nil, disabled: Bool = false,
        responder: Bool = false, staff: Bool = false
    ) {
        self.staff = staff
        self.doors = doors.map { Array(Set($0)).sorted() }
        self.schedule = schedule
        self.validFrom = validFrom
        self.validUntil = validUntil
        self.disabled = disabled
        self.responder = responder
    }

    /// Every door, always, valid, enabled: what a user without a rule has.
    public var isDefault: Bool { self == AccessRule() }

    /// Whether deciding needs the wall clock (a schedule or a validity bound).
    public var needsClock: Bool { schedule != nil || validFrom != nil || validUntil != nil }

    /// A rule as `user list` and the users file write it: `doors=a,b schedule=x valid_from=...
    /// valid_until=... disabled responder staff`, leaving out what is the default (empty for the default).
    public var fields: [String] {
        var fields: [String] = []
        if let doors { fields.append("doors=" + doors.joined(separator: ",")) }
        if let schedule { fields.append("schedule=" + schedule) }
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
                guard Identifier.isValid(value) else {
                    throw RuleError(description: "schedule=\(value): a schedule name is 1-64 of letters, digits, '.', '_' or '-'")
                }
                schedule = value == "always" ? nil : value
            case "valid_from", "valid_until":
                guard let date = SiteDate(parsing: value) else { throw RuleError(description: "\(key)=\(value) is not \(SiteDate.format)") }
                if key == "valid_from" { validFrom = date } else { validUntil = date }
            case "disabled" where value.isEmpty: disabled = true
            case "responder" where value.isEmpty: responder = true
            case "staff" where value.isEmpty: staff = true
            default:
                throw RuleError(
                    description: "'\(field)' is not a rule; valid: doors=ID,ID schedule=NAME valid_from=DATE valid_until=DATE disabled responder staff")
            }
        }
    }

    /// A comma list of door ids (terminal_id), each checked.
    public static func doors(_ text: String, option: String) throws -> [String] {
        let doors = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0.trimmingSpaces) }
        for door in doors where !Identifier.isValid(door) {
            throw RuleError(description: "\(option)\(text): '\(door)' is not a door id (a terminal_id: 1-64 of letters, digits, '.', '_' or '-')")
        }
        return Array(Set(doors)).sorted()
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
