import Foundation
import KioskPadAccess
import KioskPadCore

/// Which of an existing user's secrets a change sets: their PIN, their duress PIN (opens and
/// raises a silent alarm), or one more card (a card's number).
public enum UserSecret: Sendable {
    case pin
    case duressPIN
    case card

    /// What the audit calls setting it.
    var action: AdministratorAction {
        switch self {
        case .pin: .userPIN
        case .duressPIN: .userDuress
        case .card: .cardAdd
        }
    }

    /// What it is typed as at a door, for its lookup and replica tags.
    var kind: AttemptKind { self == .card ? .card : .pin }
}

/// An existing user's secrets, their removal and their rename, as every front end makes
/// them: each value hashed on the hashing pool before its transaction (never on a
/// cooperative thread, never holding the database's writer), tagged for lookups and doors'
/// replicas, and audited with the user's name only (never the value).
extension UsersEditing {
    /// Sets `secret` of `user` to `value` (a card is added beside their others); refused when
    /// there is no such user, or the card is someone's already.
    public func set(_ secret: UserSecret, of user: String, to value: SecretDigits, iterations: Int = PINHash.defaultIterations) async throws {
        try await requireReach(user)
        let hash = try await hashing.makeHash(value, iterations: iterations, lane: .console)
        let tag = lookupKey?.tag(value, kind: secret.kind)
        let (administration, replica) = (self.administration, self.replica)
        try await changes.apply(secret.action, [("user", user)]) {
            switch secret {
            case .pin: try await administration.setPIN(name: user, hash: hash, tag: tag)
            case .duressPIN: try await administration.setDuress(name: user, hash: hash, tag: tag)
            case .card: try await administration.addCard(name: user, hash: hash, tag: tag)
            }
            // The replica tag lets doors find this credential offline with one HMAC.
            try await replica?.tagForReplica(name: user, hash: hash, value: value, kind: secret.kind)
        }
    }

    /// Gives `user` the TOTP secret `secret` (raw bytes), replacing any they had.
    public func setTOTP(of user: String, secret: [UInt8]) async throws {
        try await requireReach(user)
        let administration = self.administration
        try await changes.apply(.userTOTP, [("user", user)]) { try await administration.setTOTP(name: user, secret: secret) }
    }

    /// Removes the card of `user` whose number is `card`; refused when they have no such card.
    public func removeCard(of user: String, _ card: SecretDigits) async throws {
        try await requireReach(user)
        let administration = self.administration
        try await changes.apply(.cardRemove, [("user", user)]) { try await administration.removeCard(name: user, value: card) }
    }

    /// Adds every user of `file` (read from `path`, which the audit names) in one transaction;
    /// ``UsersImport/Clash`` when one is there already, and nothing is imported.
    public func importUsers(_ file: UsersFile, from path: String) async throws -> Int {
        if let groups = changes.administrator.doorGroups {
            throw NotPermitted(actor: changes.administrator.name, role: changes.administrator.role, permission: .changeUsers, limitedTo: groups)
        }
        let administration = self.administration
        return try await changes.apply(
            .usersImport,
            reporting: {
                let added = try await administration.importUsers(file)
                return (added, [("file", path), ("lines", String(added))])
            })
    }

    /// Removes `user` with every line of theirs; how many lines (PIN, duress PIN, cards) went.
    public func remove(_ user: String) async throws -> Int {
        try await requireReach(user)
        let administration = self.administration
        return try await changes.apply(.userRemove, [("user", user)]) { try await administration.remove(name: user) }
    }

    /// Renames `user` to `newName`; their credentials, rule and unused codes go with them.
    public func rename(_ user: String, to newName: String) async throws {
        guard UsersFile.isValidName(newName) else {
            throw UserEditError(description: "new name '\(newName)' must be 1-64 of letters, digits, '.', '_' or '-'")
        }
        try await requireReach(user)
        let administration = self.administration
        try await changes.apply(.userRename, [("user", user), ("new_name", newName)]) { try await administration.rename(name: user, to: newName) }
    }
}
