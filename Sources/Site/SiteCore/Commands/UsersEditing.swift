import Foundation
import KioskPadAccess
import KioskPadCore

/// The users' changes, written once for the command line, the console and the API: add a
/// user, change their rule. Each checks what it is given (the user's name; the rule's
/// schedule, levels and groups against those that exist, refused when missing; its doors
/// against those the site knows, kept with a ``ChangeNote`` when unknown), then makes the
/// change, its replica tag, its audit record and its change-log entry in one transaction
/// (``AdministratorChanges``). A PIN given in clear is hashed before that transaction, on
/// the hashing pool's threads (never one of Swift's cooperative threads), so no database
/// writer waits for PBKDF2.
public struct UsersEditing: Sendable {
    let administration: any VerifierAdministration
    let replica: (any ReplicaKeeping)?
    let lookupKey: LookupKey?
    let changes: AdministratorChanges
    let hashing: HashingPool

    public init(
        administration: any VerifierAdministration, replica: (any ReplicaKeeping)?, lookupKey: LookupKey?, changes: AdministratorChanges,
        hashing: HashingPool = .shared
    ) {
        self.administration = administration
        self.replica = replica
        self.lookupKey = lookupKey
        self.changes = changes
        self.hashing = hashing
    }

    /// Adds the user of `command` (refused, and nothing stored, when they exist already or
    /// the rule names a schedule, level or group that does not); the notes on what it named.
    public func add(_ command: AddUser) async throws -> [ChangeNote] {
        let (name, rule) = (command.name, command.rule)
        guard UsersFile.isValidName(name) else {
            throw UserEditError(description: "user name '\(name)' must be 1-64 of letters, digits, '.', '_' or '-'")
        }
        try await requireReach(name, rule: rule)
        let hash: PINHash
        let tag: String?
        let digits: SecretDigits?
        switch command.pin {
        case .digits(let pin, let iterations):
            hash = try await hashing.makeHash(pin, iterations: iterations, lane: .console)
            (tag, digits) = (lookupKey?.tag(pin, kind: .pin), pin)
        case .hash(let given):
            (hash, tag, digits) = (given, nil, nil)
        }
        let (administration, replica) = (self.administration, self.replica)
        try await changes.apply(.userAdd, [("user", name)] + Self.ruleField(rule, always: false)) {
            try await administration.addUser(name: name, hash: hash, tag: tag, rule: rule)
            // The replica tag lets doors find this credential offline with one HMAC.
            if let digits { try await replica?.tagForReplica(name: name, hash: hash, value: digits, kind: .pin) }
        }
        return try await notes(naming: rule.doors ?? [])
    }

    /// Changes `user`'s rule by `patch` under `action` (`user_rule`, or `user_disable` and
    /// `user_enable` for a patch of the enabled state alone): the rule now, and, for
    /// `user_rule`, the notes on the doors it names.
    public func changeRule(of user: String, _ patch: AccessRulePatch, as action: AdministratorAction = .userRule) async throws -> (
        rule: AccessRule, notes: [ChangeNote]
    ) {
        let administration = self.administration
        // Limited to door groups: the user as they are, and as the patch leaves them, within them.
        let actor = changes.administrator
        let site = actor.doorGroups == nil ? nil : try await administration.siteRules()
        if let site { try DoorScopes.requireUser(actor, user, site: site) }
        let rule = try await changes.apply(
            action,
            reporting: {
                let rule = try await administration.setAccess(user: user) { patch.apply(to: &$0) }
                if let site { try DoorScopes.requireUser(actor, user, rule: rule, site: site) }
                return (rule, [("user", user)] + (action == .userRule ? Self.ruleField(rule, always: true) : []))
            })
        return (rule, action == .userRule ? try await notes(naming: rule.doors ?? []) : [])
    }

    /// The API's PATCH: `patch` to the rule of `user` (when it changes anything), then the
    /// rename to `newName` (when given), in one transaction, each with its own audit record
    /// and change-log entry (`user_rule`, `user_rename`): a refusal or a crash keeps neither.
    /// The notes on the rule's doors.
    public func update(_ user: String, rule patch: AccessRulePatch?, renameTo newName: String?) async throws -> [ChangeNote] {
        let editing = self
        return try await changes.store.commitChange { () async throws -> [ChangeNote] in
            var notes: [ChangeNote] = []
            if let patch { notes = try await editing.changeRule(of: user, patch).notes }
            if let newName { try await editing.rename(user, to: newName) }
            return notes
        }
    }

    /// Switches `user` off (`disabled`: every attempt of theirs denied, their history kept) or
    /// on again (`user_disable`, `user_enable`); their rule now.
    @discardableResult
    public func setDisabled(_ user: String, _ disabled: Bool) async throws -> AccessRule {
        try await changeRule(of: user, AccessRulePatch(disabled: disabled), as: disabled ? .userDisable : .userEnable).rule
    }

    /// Refuses a change to `user` (whose rule would be `rule`, or is theirs now) by an operator
    /// limited to door groups that the user's access reaches beyond (``DoorScopes``).
    func requireReach(_ user: String, rule: AccessRule? = nil) async throws {
        try await DoorScopes.requireUser(changes.administrator, user, rule: rule, administration: administration)
    }

    /// The notes on `doors`: one for each the site has not heard of.
    func notes(naming doors: [String]) async throws -> [ChangeNote] {
        try await KnownDoors.notes(naming: doors, store: changes.store, administration: administration)
    }

    /// The audit record's `rule` field: the rule's words (left out for a new user's default rule).
    static func ruleField(_ rule: AccessRule, always: Bool) -> [(String, String)] {
        always || !rule.isDefault ? [("rule", rule.text)] : []
    }
}
