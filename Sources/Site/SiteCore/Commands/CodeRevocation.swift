import Foundation
import KioskPadAccess

/// An unused one-time or enrolment code revoked, as the console and the API do it, with its
/// audit record (`code_revoke`, the code's id, never the code) and change-log entry in one
/// transaction.
public struct CodeRevocation: Sendable {
    let console: any ConsoleStore
    let changes: AdministratorChanges
    /// The site's rules, for an operator limited to door groups (their users' codes only).
    let administration: (any VerifierAdministration)?

    public init(console: any ConsoleStore, changes: AdministratorChanges, administration: (any VerifierAdministration)? = nil) {
        self.console = console
        self.changes = changes
        self.administration = administration
    }

    /// Revokes code `id` at `instant`; refused when it was used, expired or revoked already.
    public func revoke(id: Int64, at instant: Date) async throws {
        let console = self.console
        if let groups = changes.administrator.doorGroups {
            let actor = changes.administrator
            guard let administration, let code = try await console.unusedCodes(now: instant).first(where: { $0.id == id }) else {
                throw NotPermitted(actor: actor.name, role: actor.role, permission: .issueCodes, limitedTo: groups)
            }
            try DoorScopes.requireUser(actor, code.user, site: try await administration.siteRules())
        }
        try await changes.apply(.codeRevoke, [("code_id", String(id))]) {
            guard try await console.revokeCode(id: id, now: instant) else {
                throw UserEditError(description: "That code was used, expired or revoked already.")
            }
        }
    }
}
