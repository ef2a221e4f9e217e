import Foundation
import KeypadCore
import KeypadVerifier

/// What the `kioskpad verifier` commands change and read in the verifier's database beside
/// users: one-time codes, lockouts, and users brought in from (or written out to) a users
/// file. Each change is one transaction, so a running server sees it at its next attempt.
public protocol VerifierAdministration: UserDirectory {
    /// Stores a new one-time code's hash for `user` (an enabled user), valid until `expires`.
    func issueCode(user: String, hash: PINHash, expires: Date) async throws
    /// Every terminal with lockout state, sorted by terminal.
    func lockouts(policy: LockoutPolicy) async throws -> [TerminalLockout]
    /// Forgets `terminal`'s lockout and denials; false when it had none.
    func clearLockout(terminal: String) async throws -> Bool
    /// Every user line (PIN, duress PIN, card), in the order they were added.
    func records() async throws -> [UserRecord]
    /// The newest `count` audit records (JSON objects of strings), oldest first.
    func auditRecords(last count: Int) async throws -> [String]
    /// In one transaction: reads every user line, asks `plan` which lines to add (it throws
    /// to add nothing), adds them; returns how many.
    func importRecords(_ plan: @escaping @Sendable ([UserRecord]) throws -> [UserRecord]) async throws -> Int
}

/// One terminal's lockout state, for `kioskpad verifier lockout list`.
public struct TerminalLockout: Sendable, Equatable {
    public let terminal: String
    public let tracker: LockoutTracker

    public init(terminal: String, tracker: LockoutTracker) {
        self.terminal = terminal
        self.tracker = tracker
    }
}
