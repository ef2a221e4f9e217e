import Foundation
import KioskPadAccess
import KioskPadCore
import SiteCore

/// Cards and codes as the console and the management API change them: one function each, so
/// both hash, tag and audit alike. Hashing runs on the ``HashingPool`` (the console's lane),
/// never on Swift's cooperative threads. A code is returned once and never stored or audited.
struct CredentialChanges: Sendable {
    let services: ConsoleServices
    let changes: AdministratorChanges

    /// Adds (`add`) or removes card `card` of user `name`; ``UserEditError`` when there is no
    /// such user or card, or the card belongs to someone.
    func card(_ add: Bool, name: String, card: SecretDigits) async throws {
        try await changes.apply(add ? .cardAdd : .cardRemove, [("user", name)]) {
            if add {
                let hash = try await HashingPool.shared.makeHash(card, lane: .console)
                try await services.administration.addCard(name: name, hash: hash, tag: services.lookupKey?.tag(card, kind: .card))
                try await services.replica?.tagForReplica(name: name, hash: hash, value: card, kind: .card)
            } else {
                try await services.administration.removeCard(name: name, value: card)
            }
        }
    }

    /// Issues a one-time code for `user` (at `door` only, or any door they may open), valid
    /// for `seconds`; the code and when it expires.
    func issueCode(user: String, door: String?, seconds: TimeInterval) async throws -> (code: String, expires: Date) {
        let expires = services.now().addingTimeInterval(seconds)
        return (try await codes.issue(user: user, door: door, expires: expires), expires)
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
        try await changes.apply(.codeRevoke, [("code_id", String(id))]) {
            guard try await services.console.revokeCode(id: id, now: services.now()) else {
                throw UserEditError(description: "That code was used, expired or revoked already.")
            }
        }
    }
}
