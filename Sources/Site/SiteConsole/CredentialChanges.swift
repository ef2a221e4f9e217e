import Foundation
import KioskPadAccess
import KioskPadCore
import SiteCore

/// Cards and codes as the console and the management API change them: one function each, so
/// both hash, tag and audit alike (cards by ``UsersEditing``, codes by ``CodeIssuing``).
/// Hashing runs on the ``HashingPool`` (the console's lane), never on Swift's cooperative
/// threads. A code is returned once and never stored or audited.
struct CredentialChanges: Sendable {
    let services: ConsoleServices
    let changes: AdministratorChanges

    /// Adds (`add`) or removes card `card` of user `name`; ``UserEditError`` when there is no
    /// such user or card, or the card belongs to someone.
    func card(_ add: Bool, name: String, card: SecretDigits) async throws {
        let users = UsersEditing(administration: services.administration, replica: services.replica, lookupKey: services.lookupKey, changes: changes)
        if add { try await users.set(.card, of: name, to: card) } else { try await users.removeCard(of: name, card) }
    }

    /// Issues a one-time code for `user` (at `door` only, or any door they may open), valid
    /// for `seconds`; the code, when it expires and the notes on its door.
    func issueCode(user: String, door: String?, seconds: TimeInterval) async throws -> (code: String, expires: Date, notes: [ChangeNote]) {
        let expires = services.now().addingTimeInterval(seconds)
        let issued = try await codes.issue(user: user, door: door, expires: expires)
        return (issued.code, expires, issued.notes)
    }

    /// Issues an enrolment code (a PIN chosen at a door) for `user`, valid for `seconds`.
    func issueEnrolmentCode(user: String, seconds: TimeInterval) async throws -> (code: String, expires: Date) {
        let expires = services.now().addingTimeInterval(seconds)
        return (try await codes.issueEnrolment(user: user, expires: expires), expires)
    }

    private var codes: CodeIssuing {
        CodeIssuing(administration: services.administration, changes: changes, codeLength: services.codeLength, lookupKey: services.lookupKey)
    }

    /// Revokes unused code `id`; ``UserEditError`` when it was used, expired or revoked already.
    func revokeCode(id: Int64) async throws {
        try await CodeRevocation(console: services.console, changes: changes, administration: services.administration).revoke(id: id, at: services.now())
    }
}
