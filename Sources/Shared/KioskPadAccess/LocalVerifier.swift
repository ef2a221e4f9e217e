import Foundation
import KioskPadCore
import Synchronization

/// Decides on the terminal itself from a ``UsersFile``: the default for simulated mode
/// and a real option for a standalone door. Every user's hash is checked on every attempt
/// (no early exit), so the time taken does not reveal which user matched. A grant names
/// the user whose PIN matched; a duress line's PIN grants with `duress`. The users can be
/// replaced while it runs (SIGHUP reload); an attempt being checked finishes with the list
/// it started with.
///
/// At a door the file marks `@card_pin`, a card alone, a PIN alone or a code is denied
/// (reason `second_factor_required`: the door then asks for the PIN), and an attempt of kind
/// `card_pin` needs the card and its holder's own PIN.
///
/// The file's access rules (``SiteRules``) apply with the attempt's `terminal_id` as the
/// door, through the same ``AccessEvaluator`` as the site server. A rule with a schedule or
/// validity needs the wall clock: while `clockTrusted` says no, such a user is denied
/// (reason `clock_not_trusted`); users without such rules are unaffected.
public struct LocalVerifier: Verifier {
    private let store: UsersStore
    private let clock: @Sendable () -> Date
    private let clockTrusted: @Sendable () -> Bool
    /// The tag an attempt's value is looked up by (a door's replica tags); nil: every line is checked.
    private let lookup: (@Sendable (SecretDigits, AttemptKind) -> (tag: String, keyID: String))?

    public init(
        users: UsersFile, clock: @escaping @Sendable () -> Date = Date.init, clockTrusted: @escaping @Sendable () -> Bool = { true },
        lookup: (@Sendable (SecretDigits, AttemptKind) -> (tag: String, keyID: String))? = nil
    ) {
        store = UsersStore(users)
        self.clock = clock
        self.clockTrusted = clockTrusted
        self.lookup = lookup
    }

    /// The users attempts are checked against now.
    public var users: UsersFile { store.current.users }

    /// Makes `users` the list for every attempt from now on.
    public func replaceUsers(_ users: UsersFile) {
        store.replace(users)
    }

    public func verify(_ attempt: VerificationAttempt) async -> AttemptOutcome {
        // A PIN chosen at the door goes to the site (`/v1/enrol`); a users file cannot take it.
        if attempt.kind == .enrol { return .unavailable }
        let (users, rules) = store.current
        // At a card-and-PIN door a single factor is refused before any hash (the clock is
        // read only for a door with such a rule; untrusted, a scheduled rule asks for both).
        if attempt.kind != .cardPIN, rules.cardAndPIN[attempt.terminalID] != nil,
            rules.secondFactorRequired(door: attempt.terminalID, at: clockTrusted() ? clock() : nil)
        {
            return .denied(reason: .secondFactorRequired)
        }
        let tagged = lookup?(attempt.value, attempt.kind == .cardPIN ? .card : attempt.kind)
        // The hashes run on the hashing pool's door lane, never on a cooperative thread; a
        // full queue is "unavailable", never a grant.
        let found: (name: String, duress: Bool)?
        do {
            found = try await HashingPool.shared.run(.door) {
                guard attempt.kind == .cardPIN else { return users.match(attempt.value, kind: attempt.kind, tagged: tagged) }
                guard let pin = attempt.pin else { return nil }
                return users.match(card: attempt.value, pin: pin, tagged: tagged)
            }
        } catch {
            return .unavailable
        }
        guard let matched = found else { return .denied() }
        let rule = rules.rules[matched.name]
        if rule != nil || rules.modes.isSet {
            let now: Date? = rule.map { rules.needsClock($0, at: attempt.terminalID) } == true && !clockTrusted() ? nil : clock()
            if let refusal = rules.refusal(rule, door: attempt.terminalID, at: now) {
                return .denied(reason: refusal)
            }
        }
        return .granted(user: matched.name, duress: matched.duress)
    }
}

/// The current users list and its compiled rules, swapped whole under a lock.
final class UsersStore: Sendable {
    private let value: Mutex<(users: UsersFile, rules: CompiledSiteRules)>

    init(_ users: UsersFile) {
        value = Mutex((users, Self.compile(users)))
    }

    var current: (users: UsersFile, rules: CompiledSiteRules) { value.withLock { $0 } }

    func replace(_ users: UsersFile) {
        let rules = Self.compile(users)
        value.withLock { $0 = (users, rules) }
    }

    /// A parsed file's rules always compile (the parser checked the zone and every spec); a
    /// file built in code with a bad one falls back to no schedules, which refuses every
    /// user whose rule names one.
    private static func compile(_ users: UsersFile) -> CompiledSiteRules {
        (try? CompiledSiteRules(users.site)) ?? CompiledSiteRules(unchecked: users.site)
    }
}
