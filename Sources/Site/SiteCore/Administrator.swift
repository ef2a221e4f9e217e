import Foundation

/// Who makes an administrator's change: a kind of actor (what roles will be granted to) and
/// the name and source its audit record carries: the console's signed-in administrator from
/// their address, an API token from its client's, the command line's Unix user (`cli:alice`,
/// source `cli`), or the site itself.
public struct Administrator: Sendable, Equatable {
    /// How the actor reached the site.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// `kioskpad verifier ...` on the site's host, as a Unix user.
        case commandLine
        /// An administrator signed in to the console.
        case console
        /// A management API token (`/api/v1/`).
        case apiToken
        /// The site itself (a subscription disabled after its receiver failed too long).
        case site
        /// The organisation's identity provider, through a person's sign-in to the console: it
        /// makes or re-roles their account as the site's config maps their claims.
        case identityProvider
    }

    public let kind: Kind
    /// The audit's `admin` field.
    public let name: String
    /// The audit's `source` field: the client's address, `cli` or `site`.
    public let source: String
    /// What they are on the site (the command line and the site itself: owner).
    public let role: SiteRole
    /// What they may do: their role's permissions, narrowed for an API token by its scopes.
    public let permissions: Set<SitePermission>

    /// The door groups they are limited to (``DoorScopes``); nil: every door.
    public let doorGroups: [String]?

    public init(kind: Kind, name: String, source: String, role: SiteRole, permissions: Set<SitePermission>? = nil, doorGroups: [String]? = nil) {
        self.doorGroups = doorGroups
        self.kind = kind
        self.name = name
        self.source = source
        self.role = role
        self.permissions = permissions.map { $0.intersection(role.permissions) } ?? role.permissions
    }

    /// The command line's user: the one who ran `sudo` when there is one, else `USER`. Whoever
    /// can open the site's database on its host is its owner.
    public static func commandLine(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Administrator {
        Administrator(kind: .commandLine, name: "cli:" + (environment["SUDO_USER"] ?? environment["USER"] ?? "root"), source: "cli", role: .owner)
    }

    /// The console's administrator `name` with `role` (limited to `doorGroups`), signed in from `address`.
    public static func console(_ name: String, role: SiteRole, doorGroups: [String]? = nil, from address: String) -> Administrator {
        Administrator(kind: .console, name: name, source: address, role: role, doorGroups: doorGroups)
    }

    /// The API token `name` (audited as `token:NAME`) of `role`, narrowed to `scopes`, used from `address`.
    public static func apiToken(_ name: String, role: SiteRole = .administrator, scopes: Set<APIScope> = Set(APIScope.allCases), from address: String)
        -> Administrator
    {
        Administrator(kind: .apiToken, name: "token:" + name, source: address, role: role, permissions: APIScope.permissions(of: scopes))
    }

    /// The identity provider at `issuer` (audited as `openid:HOST`), through a sign-in from
    /// `address`. The site's own config says which role a claim gives, so it acts as the owner.
    public static func identityProvider(_ issuer: String, from address: String) -> Administrator {
        let host = URLComponents(string: issuer)?.host ?? issuer
        return Administrator(kind: .identityProvider, name: "openid:" + host, source: address, role: .owner)
    }

    /// The site's own changes (admin and source `site`).
    public static let site = Administrator(kind: .site, name: "site", source: "site", role: .owner)

    /// Whether they have `permission`.
    public func may(_ permission: SitePermission) -> Bool { permissions.contains(permission) }

    /// Throws ``NotPermitted`` unless they may make `action` (a visitor pass: also as its host,
    /// whose name the command checks).
    public func authorise(_ action: AdministratorAction) throws {
        if action == .visitorPassIssue || action == .visitorPassRevoke, may(.hostVisitorPasses) { return }
        try authorise(action.permission)
    }

    /// Throws ``NotPermitted`` unless they have `permission`.
    public func authorise(_ permission: SitePermission) throws {
        guard may(permission) else { throw NotPermitted(actor: name, role: role, permission: permission) }
    }

    /// Whether they may give `role` to another (an administrator or a token): only a role whose
    /// every permission they have.
    public func mayGrant(_ role: SiteRole) -> Bool { role.permissions.isSubset(of: permissions) }
}
