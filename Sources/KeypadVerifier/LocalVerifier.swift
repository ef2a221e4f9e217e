import KeypadCore
import Synchronization

/// Decides on the terminal itself from a ``UsersFile``: the default for simulated mode
/// and a real option for a standalone door. Every user's hash is checked on every attempt
/// (no early exit), so the time taken does not reveal which user matched. A grant names
/// the user whose PIN matched; a duress line's PIN grants with `duress`. The users can be
/// replaced while it runs (SIGHUP reload); an attempt being checked finishes with the list
/// it started with.
public struct LocalVerifier: Verifier {
    private let store: UsersStore

    public init(users: UsersFile) {
        store = UsersStore(users)
    }

    /// The users attempts are checked against now.
    public var users: UsersFile { store.current }

    /// Makes `users` the list for every attempt from now on.
    public func replaceUsers(_ users: UsersFile) {
        store.replace(users)
    }

    public func verify(_ attempt: VerificationAttempt) async -> AttemptOutcome {
        guard let matched = store.current.match(attempt.value, kind: attempt.kind) else { return .denied() }
        return .granted(user: matched.name, duress: matched.duress)
    }
}

/// The current users list, swapped whole under a lock.
final class UsersStore: Sendable {
    private let value: Mutex<UsersFile>

    init(_ users: UsersFile) {
        value = Mutex(users)
    }

    var current: UsersFile { value.withLock { $0 } }

    func replace(_ users: UsersFile) {
        value.withLock { $0 = users }
    }
}
