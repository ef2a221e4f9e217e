import Foundation
import KioskPadConfig
import KioskPadCore
import SiteConfig
import SiteCore
import SiteSignIn

/// The console's sign-in through the identity provider, from `server.console.openid`: the
/// roles checked against the site's (an unknown one stops the server with its key path),
/// the client secret read from where the config says, the provider reached only as its own
/// `allow_targets` allows.
enum OpenIDAssembly {
    static func signIn(_ settings: OpenIDSettings?) throws -> OpenIDSignIn? {
        guard let settings else { return nil }
        var grants: [RoleGrant] = []
        for grant in settings.roles {
            let role: SiteRole
            do { role = try SiteRole.parse(grant.role, field: grant.path + ".role") } catch {
                throw KeyedError(
                    key: grant.path + ".role", message: "\(grant.role) is not a role",
                    fix: "use one of " + SiteRole.allCases.map(\.name).joined(separator: ", "))
            }
            if grant.doorGroups != nil, !DoorScopes.limitable.contains(role) {
                throw KeyedError(
                    key: grant.path + ".door_groups",
                    message: "only \(DoorScopes.limitable.map(\.name).sorted().joined(separator: ", ")) may be limited to door groups",
                    fix: "remove door_groups, or give a role that may be limited")
            }
            grants.append(RoleGrant(claimValue: grant.claim, role: role, doorGroups: grant.doorGroups))
        }
        var secret: String?
        if let source = settings.clientSecret {
            do { secret = try source.read().trimmingCharacters(in: .whitespacesAndNewlines) } catch {
                throw KeyedError(key: "server.console.openid.client_secret", message: "\(error)", fix: "give the client secret the provider issued")
            }
        }
        var options = OpenIDSignInOptions(issuer: settings.issuer, clientID: settings.clientID, clientSecret: secret, redirectURL: settings.redirectURL)
        options.scopes = settings.scopes
        options.nameClaim = settings.nameClaim
        options.rolesClaim = settings.rolesClaim
        options.roles = grants
        options.sessionLifetime = settings.sessionLifetime
        options.clockSkew = settings.clockSkew
        options.label = settings.label
        let policy = WebhookTargetPolicy(
            allowTargets: settings.allowTargets, section: "server.console.openid", sent: "requests to the identity provider")
        return OpenIDSignIn(options: options, transport: OpenIDHTTPTransport(policy: policy, caFile: settings.caFile))
    }
}
