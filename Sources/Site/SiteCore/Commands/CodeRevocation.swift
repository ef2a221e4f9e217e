import Foundation
import KioskPadAccess

/// An unused one-time or enrolment code revoked, as the console and the API do it, with its
/// audit record (`code_revoke`, the code's id, never the code) and change-log entry in one
/// transaction.
public struct CodeRevocation: Sendable {
    let console: any ConsoleStore
    let changes: AdministratorChanges

    public init(console: any ConsoleStore, changes: AdministratorChanges) {
        self.console = console
        self.changes = changes
    }

    /// Revokes code `id` at `instant`; refused when it was used, expired or revoked already.
    public func revoke(id: Int64, at instant: Date) async throws {
        let console = self.console
        try await changes.apply(.codeRevoke, [("code_id", String(id))]) {
            guard try await console.revokeCode(id: id, now: instant) else {
                throw UserEditError(description: "That code was used, expired or revoked already.")
            }
        }
    }
}
