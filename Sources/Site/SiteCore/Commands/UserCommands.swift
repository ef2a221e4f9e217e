import KioskPadAccess
import KioskPadCore

/// A new user's PIN as the front end received it: the digits themselves (the command line
/// and the console, which hash them and tag the credential for doors' replicas), or only a
/// hash (the API: a PIN never crosses it in clear, so the credential has no lookup or
/// replica tag until the user chooses a PIN at a door or one is set in the console).
public enum NewUserPIN: Sendable {
    case digits(SecretDigits, iterations: Int = PINHash.defaultIterations)
    case hash(PINHash)
}

/// "Add a user": their name, first PIN and access rule. One command for every front end
/// (``UsersEditing/add(_:)``).
public struct AddUser: Sendable {
    public let name: String
    public let pin: NewUserPIN
    public let rule: AccessRule

    public init(name: String, pin: NewUserPIN, rule: AccessRule = AccessRule()) {
        self.name = name
        self.pin = pin
        self.rule = rule
    }
}

/// Which parts of a user's access rule a change sets; nil keeps a part as it is, and for a
/// part that may be absent, `.some(nil)` clears it (`doors`: every door; `schedule`: always;
/// a date: no limit). The command line's options, the console's form (every part) and the
/// API's PATCH (the keys sent) each become one.
public struct AccessRulePatch: Sendable, Equatable {
    public var doors: [String]??
    public var schedule: String??
    public var levels: [String]?
    public var groups: [String]?
    public var validFrom: SiteDate??
    public var validUntil: SiteDate??
    public var responder: Bool?
    public var staff: Bool?
    public var disabled: Bool?

    public init(
        doors: [String]?? = nil, schedule: String?? = nil, levels: [String]? = nil, groups: [String]? = nil, validFrom: SiteDate?? = nil,
        validUntil: SiteDate?? = nil, responder: Bool? = nil, staff: Bool? = nil, disabled: Bool? = nil
    ) {
        self.doors = doors
        self.schedule = schedule
        self.levels = levels
        self.groups = groups
        self.validFrom = validFrom
        self.validUntil = validUntil
        self.responder = responder
        self.staff = staff
        self.disabled = disabled
    }

    /// Every part of `rule` but whether the user is enabled (what the console's form saves).
    public static func everyPart(of rule: AccessRule) -> AccessRulePatch {
        AccessRulePatch(
            doors: .some(rule.doors), schedule: .some(rule.schedule), levels: rule.levels, groups: rule.groups, validFrom: .some(rule.validFrom),
            validUntil: .some(rule.validUntil), responder: rule.responder, staff: rule.staff)
    }

    /// Sets the parts this patch names.
    public func apply(to rule: inout AccessRule) {
        if let doors { rule.doors = doors }
        if let schedule { rule.schedule = schedule }
        if let levels { rule.levels = levels }
        if let groups { rule.groups = groups }
        if let validFrom { rule.validFrom = validFrom }
        if let validUntil { rule.validUntil = validUntil }
        if let responder { rule.responder = responder }
        if let staff { rule.staff = staff }
        if let disabled { rule.disabled = disabled }
    }
}
