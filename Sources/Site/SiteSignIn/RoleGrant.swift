import SiteCore

/// One line of `server.console.openid.roles`: a value of the role claim (a group's name or
/// id at the provider) and the KioskPad role it gives, limited to door groups for a guard.
/// The first line whose value a person's claim holds decides; none: they are refused.
public struct RoleGrant: Sendable, Equatable {
    public let claimValue: String
    public let role: SiteRole
    public let doorGroups: [String]?

    public init(claimValue: String, role: SiteRole, doorGroups: [String]? = nil) {
        self.claimValue = claimValue
        self.role = role
        self.doorGroups = doorGroups
    }

    /// The first grant whose value is among `values`.
    public static func first(in grants: [RoleGrant], for values: [String]) -> RoleGrant? {
        let held = Set(values)
        return grants.first { held.contains($0.claimValue) }
    }
}

/// The names an account of the identity provider may have here: its name claim as it is
/// (`ann`, `ann.lee@example.com`), 1-128 of letters, digits, `.`, `_`, `-`, `@` and `+`.
public enum ProviderAccountName {
    public static func isValid(_ text: String) -> Bool {
        (1...128).contains(text.count)
            && text.unicodeScalars.allSatisfy { scalar in
                switch scalar {
                case "a"..."z", "A"..."Z", "0"..."9", ".", "_", "-", "@", "+": return true
                default: return false
                }
            }
    }
}
