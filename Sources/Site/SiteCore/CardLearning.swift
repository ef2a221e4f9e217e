import Foundation
import KioskPadAccess
import KioskPadCore
import KioskPadStorage

/// A door armed to learn a card: the next card read there that matches nobody becomes
/// `user`'s (the door shows `Card learned` and stays shut); a card that is someone's already
/// is refused. Armed for ``CardLearning/armedSeconds``; the result is kept for the administrator.
public struct CardLearningArm: Sendable, Equatable {
    public let door: String
    public let user: String
    public let armedBy: String
    public let armed: Date
    public let expires: Date
    /// What came of it: ``CardLearning/learned``, or why the card read was refused; nil while armed.
    public let result: String?
    public let resultAt: Date?

    public init(door: String, user: String, armedBy: String, armed: Date, expires: Date, result: String?, resultAt: Date?) {
        self.door = door
        self.user = user
        self.armedBy = armedBy
        self.armed = armed
        self.expires = expires
        self.result = result
        self.resultAt = resultAt
    }

    /// Its state at `now`, as the console and the command line say it.
    public func state(at now: Date) -> String {
        if let result { return result }
        return now < expires ? "armed" : "expired: no unknown card was read"
    }
}

/// A card a door read that matched nobody: its hash and tags (never its number), to be
/// claimed for a user.
public struct UnknownCard: Sendable, Equatable {
    public let id: Int64
    public let door: String
    public let seen: Date
    /// How many digits its number has.
    public let digits: Int

    public init(id: Int64, door: String, seen: Date, digits: Int) {
        self.id = id
        self.door = door
        self.seen = seen
        self.digits = digits
    }
}

/// An unknown card as an attempt hashed it, off the cooperative threads: the line it would
/// become (hash, lookup tag, replica tag) and its number's length.
public struct UnknownCardHash: Sendable, Equatable {
    public let hash: PINHash
    public let lookupTag: String?
    public let replicaTag: String?
    public let digits: Int

    public init(hash: PINHash, lookupTag: String?, replicaTag: String?, digits: Int) {
        self.hash = hash
        self.lookupTag = lookupTag
        self.replicaTag = replicaTag
        self.digits = digits
    }
}

/// Card learning's words and limits.
public enum CardLearning {
    /// How long a door stays armed.
    public static let armedSeconds: TimeInterval = 120
    /// The result of a learned card.
    public static let learned = "learned"
    /// Unknown cards kept per door (the newest), and for how long.
    public static let unknownKept = 20
    public static let unknownKeptSeconds: TimeInterval = 86_400

    /// The result of a card that is `owner`'s already.
    public static func enrolledTo(_ owner: String) -> String {
        "refused: that card is \(owner)'s already"
    }
}

/// Arming doors, the unknown cards and claiming one: what the console and the command line
/// change, each through ``CardLearningChanges``.
public protocol CardLearningAdministration: Sendable {
    /// Arms `door` for `user` (a user of the site) until `now + CardLearning.armedSeconds`,
    /// replacing what the door was armed for; ``UserEditError`` for no such user.
    func armCardLearning(door: String, user: String, by admin: String, now: Date) async throws -> CardLearningArm
    /// The doors armed for `user` lately (any result), newest first.
    func cardLearning(user: String) async throws -> [CardLearningArm]
    /// The unknown cards read since `since`, newest first.
    func unknownCards(since: Date) async throws -> [UnknownCard]
    /// Makes unknown card `id` one of `user`'s cards and forgets it; ``UserEditError`` for no
    /// such card or user. Returns the door it was read at.
    func claimUnknownCard(id: Int64, user: String) async throws -> String
}

/// The one way a door is armed or an unknown card claimed, whatever it came through (the
/// command line, the console): the change, then one audit record (`card_learn_arm`,
/// `card_claim`, webhook type `user.changed`).
public struct CardLearningChanges: Sendable {
    let administration: any VerifierAdministration
    let changes: AdministratorChanges

    public init(administration: any VerifierAdministration, changes: AdministratorChanges) {
        self.administration = administration
        self.changes = changes
    }

    /// Arms `door` to learn `user`'s card for two minutes.
    public func arm(door: String, user: String, now: Date) async throws -> CardLearningArm {
        guard Identifier.isValid(door) else {
            throw UserEditError(description: "door: '\(door)' is not a door id (1-64 of letters, digits, '.', '_' or '-')")
        }
        // A user manager limited to door groups: their user, at one of their doors.
        try await DoorScopes.requireUser(changes.administrator, user, administration: administration)
        try await DoorScopes.require(changes.administrator, door: door, administration: administration)
        return try await changes.apply(.cardLearnArm) {
            let arm = try await administration.armCardLearning(door: door, user: user, by: changes.administrator.name, now: now)
            return (arm, [("user", user), ("door", door), ("expires", UTCTimestamp.rfc3339(arm.expires))])
        }
    }

    /// Gives unknown card `id` to `user`.
    public func claim(id: Int64, user: String) async throws {
        try await DoorScopes.requireUser(changes.administrator, user, administration: administration)
        try await changes.apply(.cardClaim) {
            let door = try await administration.claimUnknownCard(id: id, user: user)
            return ((), [("user", user), ("unknown_card", String(id)), ("door", door)])
        }
    }
}
