import Foundation

/// What changed in one door's replica between two versions, when only users changed (their
/// PINs, cards and rules): for each user named, every line and the rule the door now holds
/// for them (none: the user may no longer open it), and the schedules those rules name. A door
/// that holds ``fromVersion`` with ``fromMark`` applies it (``CredentialReplica/applying(_:)``)
/// and holds ``version``; anything else (a schedule, holiday, mode, group, level, door or key
/// changed) comes as a whole replica.
public struct CredentialReplicaDelta: Sendable, Equatable {
    public let terminalID: String
    /// The version the door must hold, and that version's mark (``CredentialReplica/mark``).
    public let fromVersion: Int64
    public let fromMark: String
    public let version: Int64
    /// The mark of ``version``, which the door holds once it applied this.
    public let mark: String
    public let issuedAt: Date
    /// Every user whose lines or rule changed, sorted; their old lines and rules go.
    public let users: [String]
    /// The users' lines now, each tag cut to 32 bits (the door cuts it to its replica's bits).
    public let entries: [CredentialReplica.Entry]
    /// The users' rules that are not the default, compiled for this door.
    public let rules: [String: String]
    /// The schedules those rules name: name to spec.
    public let schedules: [String: String]
    /// The site's holidays from yesterday on, when the users' rules name a schedule (a door
    /// that held none, because nobody there had a schedule, needs them now).
    public let holidays: [String: String]

    public init(
        terminalID: String, fromVersion: Int64, fromMark: String, version: Int64, mark: String, issuedAt: Date, users: [String],
        entries: [CredentialReplica.Entry], rules: [String: String], schedules: [String: String], holidays: [String: String] = [:]
    ) {
        self.terminalID = terminalID
        self.fromVersion = fromVersion
        self.fromMark = fromMark
        self.version = version
        self.mark = mark
        self.issuedAt = issuedAt
        self.users = users
        self.entries = entries
        self.rules = rules
        self.schedules = schedules
        self.holidays = holidays
    }

    /// Bits of each tag a delta carries: all a replica may keep.
    public static let tagBits = 32

    /// The rules beyond the base ones the delta's own rules use.
    public var requires: [ReplicaRequirement] {
        let (responders, anyOfSchedules) = CredentialReplica.ruleNeeds(rules)
        return ReplicaRequirement.needed(
            holidays: !holidays.isEmpty, lockdown: responders, unlockSchedule: false, cardPIN: false, accessLevels: anyOfSchedules)
    }

    /// The delta's own fields in the signed JSON (beside `kind`, `terminal_id`, `version` and `issued_at`).
    func fields() -> [String: Any] {
        var object: [String: Any] = [
            "from_version": fromVersion, "from_mark": fromMark, "mark": mark, "users": users, "rules": rules, "schedules": schedules,
            "entries": entries.map(\.jsonObject),
        ]
        if !holidays.isEmpty { object["holidays"] = holidays }
        return object
    }

    /// The delta in `object`; an error names the field.
    init(terminalID: String, version: Int64, issuedAt: Date, object: [String: Any]) throws {
        guard let from = (object["from_version"] as? NSNumber)?.int64Value, from > 0, from < version else {
            throw ReplicaError("from_version must be a positive integer below version")
        }
        guard let fromMark = object["from_mark"] as? String, let mark = object["mark"] as? String else {
            throw ReplicaError("a delta needs from_mark and mark (strings)")
        }
        guard let users = object["users"] as? [String], let rules = object["rules"] as? [String: String],
            let schedules = object["schedules"] as? [String: String], let rows = object["entries"] as? [[String: String]]
        else { throw ReplicaError("users must be a list of names, rules and schedules objects of strings, entries a list") }
        let holidays = object["holidays"] ?? [String: String]()
        guard let holidays = holidays as? [String: String] else { throw ReplicaError("holidays must be an object of date to rule") }
        let named = Set(users)
        let entries = try CredentialReplica.Entry.list(rows)
        if let stranger = entries.first(where: { !named.contains($0.user) })?.user ?? rules.keys.first(where: { !named.contains($0) }) {
            throw ReplicaError("the delta has a line or rule of '\(stranger)', whom its users do not name")
        }
        self.init(
            terminalID: terminalID, fromVersion: from, fromMark: fromMark, version: version, mark: mark, issuedAt: issuedAt, users: users,
            entries: entries, rules: rules, schedules: schedules, holidays: holidays)
    }
}

extension CredentialReplica {
    /// This replica with `delta` applied: the named users' lines and rules replaced by the
    /// delta's (tags cut to this replica's bits), its schedules and holidays added; the
    /// version, mark and issue time the delta's. Refused unless this replica is the one the
    /// delta was made from.
    public func applying(_ delta: CredentialReplicaDelta) throws -> CredentialReplica {
        guard delta.terminalID == terminalID else {
            throw ReplicaError("a delta for terminal '\(delta.terminalID)' given to the replica of '\(terminalID)'")
        }
        guard delta.fromVersion == version, delta.fromMark == mark else {
            throw ReplicaError(
                "a delta from version \(delta.fromVersion) given to replica version \(version)\(delta.fromVersion == version ? " of another history (its mark differs)" : "")"
            )
        }
        let changed = Set(delta.users)
        let added = delta.entries.map { entry in
            CredentialReplica.Entry(
                user: entry.user, kind: entry.kind, hash: entry.hash, tag: tagKey == nil ? nil : entry.tag.map { ReplicaTagKey.cut($0, bits: tagBits) })
        }
        return CredentialReplica(
            terminalID: terminalID, version: delta.version, issuedAt: delta.issuedAt, timeZone: timeZone,
            schedules: schedules.merging(delta.schedules) { _, new in new },
            rules: rules.filter { !changed.contains($0.key) }.merging(delta.rules) { _, new in new },
            entries: entries.filter { !changed.contains($0.user) } + added, tagKey: tagKey, tagBits: tagBits,
            holidays: holidays.merging(delta.holidays) { _, new in new }, mode: mode, modeCheck: modeCheck, unlock: unlock, cardAndPIN: cardAndPIN,
            mark: delta.mark)
    }
}

extension CredentialReplica.Entry {
    /// The entry as the signed JSON has it.
    var jsonObject: [String: String] {
        var row = ["user": user, "kind": kind, "hash": hash.description]
        if let tag { row["tag"] = tag }
        return row
    }

    /// Entries from the signed JSON's rows; an error names the row.
    static func list(_ rows: [[String: String]]) throws -> [CredentialReplica.Entry] {
        try rows.enumerated().map { index, row in
            guard let user = row["user"], let kind = row["kind"], ["pin", "duress", "card"].contains(kind), let hash = row["hash"] else {
                throw ReplicaError("entries[\(index)] needs user, kind (pin, duress or card) and hash")
            }
            return CredentialReplica.Entry(user: user, kind: kind, hash: try PINHash(parsing: hash), tag: row["tag"])
        }
    }
}
