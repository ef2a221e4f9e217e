import KeypadCore

/// Decides on the terminal itself from a ``UsersFile``: the default for simulated mode
/// and a real option for a standalone door. Every user's hash is checked on every attempt
/// (no early exit), so the time taken does not reveal which user matched. A grant names
/// the user whose PIN matched.
public struct LocalVerifier: Verifier {
    public let users: UsersFile

    public init(users: UsersFile) {
        self.users = users
    }

    public func verify(_ attempt: VerificationAttempt) async -> AttemptOutcome {
        var matched: String?
        for user in users.users where user.pinHash.matches(attempt.value) {
            matched = matched ?? user.name
        }
        guard let matched else { return .denied() }
        return .granted(user: matched)
    }
}
