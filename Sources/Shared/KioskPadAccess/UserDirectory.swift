import KioskPadCore

/// Where `kioskpad verifier user` changes the reference verifier's users: its database
/// (SQLite or PostgreSQL). A change that cannot be made (no such user, a user added twice)
/// throws ``UserEditError``, naming the user.
public protocol UserDirectory: Sendable {
    /// Where the users are, for messages: a file's path or the database's URL.
    var location: String { get }
    /// The config key that says where (for errors that are not about one user).
    var configKey: String { get }
    /// Adds `name` with a PIN hash (and lookup tag); refused when the user has a PIN already.
    func add(name: String, hash: PINHash, tag: String?) async throws
    /// Removes everything of `name` (PIN, duress PIN, TOTP secret, cards); returns how many entries.
    func remove(name: String) async throws -> Int
    /// Replaces `name`'s PIN hash (and lookup tag), keeping the TOTP secret.
    func setPIN(name: String, hash: PINHash, tag: String?) async throws
    /// Sets `name`'s duress PIN, replacing an earlier one.
    func setDuress(name: String, hash: PINHash, tag: String?) async throws
    /// Adds a card (the hash of its number) for `name`.
    func addCard(name: String, hash: PINHash, tag: String?) async throws
    /// Removes `name`'s card whose number is `value`.
    func removeCard(name: String, value: SecretDigits) async throws
    /// Gives `name` a TOTP secret, replacing an earlier one.
    func setTOTP(name: String, secret: [UInt8]) async throws
    /// Every user and what they have; no hashes or secrets.
    func list() async throws -> [UserSummary]
}

/// One user as `user list` shows it; never a hash or a secret.
public struct UserSummary: Equatable, Sendable {
    public let name: String
    public let hasPIN: Bool
    public let hasTOTP: Bool
    public let hasDuressPIN: Bool
    public let cards: Int

    public init(name: String, hasPIN: Bool, hasTOTP: Bool, hasDuressPIN: Bool, cards: Int) {
        self.name = name
        self.hasPIN = hasPIN
        self.hasTOTP = hasTOTP
        self.hasDuressPIN = hasDuressPIN
        self.cards = cards
    }
}

/// A change to the users that cannot be made, naming the user and where the users are.
public struct UserEditError: Error, Equatable, CustomStringConvertible {
    /// What was wrong, for an answer that tells them apart (the management API's status).
    public enum Kind: Sendable, Equatable {
        /// The request itself (a value, a key, a shape): 400.
        case invalid
        /// It names something the site does not have: 404.
        case notFound
        /// It does not fit what is there now: 409.
        case conflict
    }

    public let description: String
    public let kind: Kind

    public init(description: String, kind: Kind = .invalid) {
        self.description = description
        self.kind = kind
    }

    /// `user add` for a user who has a PIN already.
    public static func alreadyThere(_ name: String, in location: String) -> UserEditError {
        UserEditError(description: "user '\(name)' is already in \(location); `kioskpad verifier user set-pin \(name)` changes the PIN")
    }
}
