/// One thing an operator may do on the site: see an area, or change it. A role is a set of
/// them (``SiteRole/permissions``); a console route, an API route and every command of the
/// application layer (``AdministratorChanges``) names the one it needs.
public enum SitePermission: String, Sendable, CaseIterable, Comparable {
    /// The Doors page and its live data, the doors' list and modes through the API.
    case viewDoors = "doors.view"
    /// Users, their cards and rules (never a PIN or code).
    case viewUsers = "users.view"
    /// The one-time and enrolment codes not yet used.
    case viewCodes = "codes.view"
    /// Every visitor pass.
    case viewVisitors = "visitors.view"
    /// Schedules, holidays, door groups, levels, groups, settings and the replica key's state.
    case viewSite = "site.view"
    /// Who entered, and the audit.
    case viewEntries = "entries.view"
    /// "Who entered" as CSV (audited: `entries_export`).
    case exportEntries = "entries.export"
    /// API tokens and webhook subscriptions, with their deliveries.
    case viewIntegrations = "integrations.view"
    /// Add, change, disable, rename and remove users; their PINs, cards and TOTP; import.
    case changeUsers = "users.change"
    /// Issue and revoke one-time and enrolment codes.
    case issueCodes = "codes.issue"
    /// Issue and revoke visitor passes for any host.
    case issueVisitorPasses = "visitors.issue"
    /// Issue and revoke visitor passes the operator hosts (host: the user of their own name),
    /// and see those passes only.
    case hostVisitorPasses = "visitors.host"
    /// Schedules, holidays, the time zone, unlock schedules, card and PIN, door groups, levels, groups.
    case changeSite = "site.change"
    /// The site's and a door's mode (a lockdown), and the mode check.
    case setModes = "modes.set"
    /// Acknowledge a door's alert.
    case acknowledgeAlerts = "alerts.acknowledge"
    /// Unlock or lock a door from the desk.
    case commandDoors = "doors.command"
    /// Clear a door's lockout.
    case clearLockouts = "lockouts.clear"
    /// Adopt, add, retire and remove doors, rotate their secrets, change their settings and
    /// rotate the replica key.
    case manageDoors = "doors.manage"
    /// Add and remove console administrators, change their roles and TOTP.
    case manageAdministrators = "administrators.manage"
    /// Create and revoke API tokens.
    case manageTokens = "tokens.manage"
    /// Add, remove, enable and resend webhook subscriptions.
    case manageWebhooks = "webhooks.manage"

    public static func < (lhs: SitePermission, rhs: SitePermission) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Every permission that only reads.
    public static let views: Set<SitePermission> = [
        .viewDoors, .viewUsers, .viewCodes, .viewVisitors, .viewSite, .viewEntries, .viewIntegrations,
    ]
}

/// What an operator is on the site: a console administrator's or an API token's role, each a
/// set of ``SitePermission``s. The table below is the one the docs print
/// (`kioskpad verifier roles`).
public enum SiteRole: String, Sendable, CaseIterable, Comparable {
    /// Everything, administrators included. The command line on the site's host acts as one.
    case owner
    /// Everything but the administrators' accounts.
    case administrator
    /// People: users, cards, codes and visitor passes; reads the doors and the site.
    case userManager = "user-manager"
    /// Visitor passes for the people they host, and those passes only.
    case host
    /// The live doors: alerts, modes (a lockdown), remote unlock and lock, lockouts; reads the
    /// site and who entered.
    case `guard`
    /// Reads everything and exports who entered; changes nothing.
    case auditor

    public static func < (lhs: SiteRole, rhs: SiteRole) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// The role's permissions: the one table of who may do what.
    public var permissions: Set<SitePermission> {
        switch self {
        case .owner: Set(SitePermission.allCases)
        case .administrator: Set(SitePermission.allCases).subtracting([.manageAdministrators])
        case .userManager:
            [.viewDoors, .viewUsers, .viewCodes, .viewVisitors, .viewSite, .changeUsers, .issueCodes, .issueVisitorPasses]
        case .host: [.hostVisitorPasses]
        case .guard: [.viewDoors, .viewSite, .viewEntries, .setModes, .acknowledgeAlerts, .commandDoors, .clearLockouts]
        case .auditor: SitePermission.views.union([.exportEntries])
        }
    }

    /// The role as written in the config, the command line and the audit (`user-manager`).
    public var name: String { rawValue }

    /// `guard` as a role, or an error naming `field` and the roles there are.
    public static func parse(_ text: String, field: String) throws -> SiteRole {
        guard let role = SiteRole(rawValue: text.trimmingCharacters(in: .whitespaces).lowercased()) else {
            throw RoleProblem("\(field): \(text) is not a role (use \(allCases.map(\.name).joined(separator: ", ")))")
        }
        return role
    }

    /// The roles that have `permission`, for a refusal that says who could.
    public static func having(_ permission: SitePermission) -> [SiteRole] {
        allCases.filter { $0.permissions.contains(permission) }
    }

    /// The table as Markdown: a row a permission, a column a role (what the docs print).
    public static func markdownTable() -> String {
        var lines = ["| permission | " + allCases.map(\.name).joined(separator: " | ") + " |"]
        lines.append("|---|" + allCases.map { _ in "---|" }.joined())
        for permission in SitePermission.allCases {
            lines.append("| `\(permission.rawValue)` | " + allCases.map { $0.permissions.contains(permission) ? "yes" : "" }.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }
}

/// Why an operator may not do what they asked: names who, their role, and the permission and
/// the roles that have it. Nothing was changed.
public struct NotPermitted: Error, Equatable, Sendable, CustomStringConvertible {
    public let actor: String
    public let role: SiteRole
    public let permission: SitePermission
    /// The door groups the actor is limited to, when that is why (the door asked for, nil: the site).
    public let limitedTo: [String]?
    public let door: String?
    /// The user asked for, when the limit is why (``DoorScopes/requireUser(_:_:rule:site:)``).
    public let user: String?

    public init(actor: String, role: SiteRole, permission: SitePermission, limitedTo: [String]? = nil, door: String? = nil, user: String? = nil) {
        self.user = user
        self.actor = actor
        self.role = role
        self.permission = permission
        self.limitedTo = limitedTo
        self.door = door
    }

    public var description: String {
        if let groups = limitedTo, let user {
            return "\(actor) (\(role.name) of door groups \(groups.joined(separator: ", "))) may not act on user \(user), "
                + "whose access is not all within them; nothing was changed"
        }
        if let groups = limitedTo {
            return "\(actor) (\(role.name) of door groups \(groups.joined(separator: ", "))) may not act on "
                + (door.map { "door \($0), which is in none of them" } ?? "the whole site") + "; nothing was changed"
        }
        return "\(actor) (\(role.name)) may not do this: it needs \(permission.rawValue), which "
            + SiteRole.having(permission).map(\.name).joined(separator: ", ") + " have; nothing was changed"
    }
}

/// A role that cannot be read or given.
public struct RoleProblem: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

extension AdministratorAction {
    /// The permission this change needs. A visitor pass's also admits ``SitePermission/hostVisitorPasses``
    /// for a pass whose host is the operator (``VisitorPassIssuing``).
    public var permission: SitePermission {
        switch self {
        case .userAdd, .userRemove, .userRename, .userRule, .userDisable, .userEnable, .userPIN, .userDuress, .userTOTP, .cardAdd, .cardRemove,
            .cardLearnArm, .cardClaim, .usersImport:
            .changeUsers
        case .codeIssue, .codeRevoke, .enrolCodeIssue: .issueCodes
        case .visitorPassIssue, .visitorPassRevoke: .issueVisitorPasses
        case .scheduleSet, .scheduleRemove, .timeZoneSet, .holidaySet, .holidayRemove, .unlockSet, .cardPINSet, .doorGroupSet, .doorGroupRemove,
            .levelSet, .levelRemove, .userGroupSet, .userGroupRemove:
            .changeSite
        case .modeSet, .modeCheckSet: .setModes
        case .doorAdd, .doorRemove, .doorAdopt, .doorRotate, .doorRetire, .settingsSet, .replicaKeyRotate, .replicaKeyFinish: .manageDoors
        case .doorUnlock, .doorLock: .commandDoors
        case .lockoutClear: .clearLockouts
        case .alertAcknowledge: .acknowledgeAlerts
        case .adminAdd, .adminRemove, .adminRole, .adminProviderSignIn, .adminTOTP, .adminTOTPRemove: .manageAdministrators
        case .entriesExport: .exportEntries
        case .tokenCreate, .tokenRevoke: .manageTokens
        case .webhookAdd, .webhookRemove, .webhookResend, .webhookEnable, .webhookDisable: .manageWebhooks
        }
    }
}
