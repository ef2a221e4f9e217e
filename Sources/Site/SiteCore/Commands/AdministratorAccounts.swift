import Foundation
import KioskPadAccess

/// The console's administrators' own accounts, added, removed and given or relieved of a
/// TOTP secret or another role, each with its audit record (`admin_add`, `admin_remove`,
/// `admin_role`, `admin_totp`, `admin_totp_remove`: the name and role, never a password or secret) and change-log entry in one
/// transaction. The password arrives hashed (``PINHash/make(password:iterations:)``).
public struct AdministratorAccounts: Sendable {
    let console: any ConsoleStore
    /// The site's door groups, for a limit (``DoorScopes``).
    let administration: any VerifierAdministration
    let changes: AdministratorChanges
    /// Where the accounts are, for a refusal (the database's file or URL).
    let location: String

    public init(console: any ConsoleStore, administration: any VerifierAdministration, changes: AdministratorChanges, location: String) {
        self.console = console
        self.administration = administration
        self.changes = changes
        self.location = location
    }

    /// Adds administrator `name` of `role` with the password hashed as `hash`; refused when
    /// they exist, or when the role has a permission the actor lacks.
    public func add(_ name: String, hash: PINHash, role: SiteRole, doorGroups: [String]? = nil) async throws {
        let (console, location) = (self.console, self.location)
        try grantable(role)
        try DoorScopes.check(doorGroups, role: role, site: try await administration.siteRules())
        try await changes.apply(.adminAdd, [("administrator", name), ("role", role.name)] + Self.groupsField(doorGroups)) {
            guard try await console.addAdmin(name: name, hash: hash, role: role, doorGroups: doorGroups) else {
                throw UserEditError(
                    description: "administrator '\(name)' is already in \(location); `kioskpad verifier admin remove \(name)` first to replace them")
            }
        }
    }

    /// Gives administrator `name` `role`: their sessions hold it from their next request.
    public func setRole(_ name: String, role: SiteRole, doorGroups: [String]? = nil) async throws {
        let (console, location) = (self.console, self.location)
        try grantable(role)
        try DoorScopes.check(doorGroups, role: role, site: try await administration.siteRules())
        try await changes.apply(.adminRole, [("administrator", name), ("role", role.name)] + Self.groupsField(doorGroups)) {
            guard try await console.setAdminRole(name: name, role: role, doorGroups: doorGroups) else {
                throw UserEditError(description: "no administrator '\(name)' in \(location)")
            }
        }
    }

    /// Makes `name` the identity provider's account with `role` (and door groups), or gives
    /// theirs the role their claims map to now: at every sign-in through the provider, by
    /// ``Administrator/identityProvider(_:from:)``. Refused when `name` is a local account,
    /// or when a door group is not the site's. No password can sign the account in.
    public func signInFromProvider(_ name: String, provider: String, role: SiteRole, doorGroups: [String]? = nil) async throws {
        let (console, location) = (self.console, self.location)
        try DoorScopes.check(doorGroups, role: role, site: try await administration.siteRules())
        var generator = SystemRandomNumberGenerator()
        let unusable = PINHash(
            iterations: PINHash.passwordIterations, salt: (0..<16).map { _ in generator.next() }, hash: (0..<32).map { _ in generator.next() })
        try await changes.apply(
            .adminProviderSignIn, [("administrator", name), ("role", role.name), ("provider", provider)] + Self.groupsField(doorGroups)
        ) {
            guard try await console.signInFromProvider(name: name, provider: provider, role: role, doorGroups: doorGroups, unusable: unusable) else {
                throw UserEditError(
                    description:
                        "administrator '\(name)' is a local account (or another provider's) in \(location); a sign-in through the identity provider never takes one over. Remove it, or map another name claim"
                )
            }
        }
    }

    /// The audit's `door_groups` field, when there is a limit.
    static func groupsField(_ groups: [String]?) -> [(String, String)] {
        groups.map { [("door_groups", $0.joined(separator: ","))] } ?? []
    }

    /// Refuses a role with a permission the actor lacks (no one makes someone more than themselves).
    func grantable(_ role: SiteRole) throws {
        guard changes.administrator.mayGrant(role) else {
            throw UserEditError(description: "role: \(changes.administrator.name) (\(changes.administrator.role.name)) may not give the role \(role.name)")
        }
    }

    /// Removes administrator `name`; refused when there is none.
    public func remove(_ name: String) async throws {
        let (console, location) = (self.console, self.location)
        try await changes.apply(.adminRemove, [("administrator", name)]) {
            guard try await console.removeAdmin(name: name) else { throw UserEditError(description: "no administrator '\(name)' in \(location)") }
        }
    }

    /// Gives administrator `name` the TOTP secret `secret`, or (nil) takes theirs away.
    public func setTOTP(_ name: String, secret: [UInt8]?) async throws {
        let (console, location) = (self.console, self.location)
        try await changes.apply(secret == nil ? .adminTOTPRemove : .adminTOTP, [("administrator", name)]) {
            guard try await console.setAdminTOTP(name: name, secret: secret) else {
                throw UserEditError(description: "no administrator '\(name)' in \(location)")
            }
        }
    }
}
