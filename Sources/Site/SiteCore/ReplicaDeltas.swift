import Foundation
import KioskPadAccess

/// Whether a door's replica can be brought from one version to another by a delta, read from
/// the change log between them: yes, naming the users, when every change there that a
/// replica holds was one user's (a PIN, card or rule set, a user added, disabled or removed,
/// a card learned or a PIN chosen at a door); no when a schedule, holiday, mode, group,
/// level, door, key or an import or rename changed, or the log says nothing more
/// (kind `replica`): the door then gets the whole replica.
public enum ReplicaDeltaPlan {
    /// At most this many log entries between the door's version and the current one; past
    /// that the whole replica is sent.
    public static let maxChanges = 256

    /// The users `changes` changed, or nil when one of them was of something else a replica holds.
    public static func users(in changes: some Sequence<LoggedChange>) -> Set<String>? {
        var users: Set<String> = []
        for change in changes {
            let entry = change.entry
            switch entry.kind {
            // Not in a replica: a door never decides offline by codes, passes, lockouts or the site's own accounts.
            case .code, .visitorPass, .lockout, .alert, .administrator, .token, .webhook, .doorSettings, .doorCommand, .none:
                continue
            case .user:
                // An import names no one user, a rename two.
                guard !entry.subject.isEmpty, entry.action != .usersImport, entry.action != .userRename else { return nil }
                users.insert(entry.subject)
            case .schedule, .holiday, .mode, .door, .accessGroup, .replicaKey, .replica:
                return nil
            }
        }
        return users
    }
}

/// A replica version's mark: the time its change-log entry was written, in milliseconds. A
/// door sends it back with the version, so a site restored from a backup, whose positions
/// after the backup name other changes, never sends a delta to a door that holds a version
/// of the history it lost.
public enum ReplicaMark {
    public static func of(_ change: LoggedChange) -> String {
        String(Int64((change.time.timeIntervalSince1970 * 1000).rounded()))
    }
}

extension CredentialService {
    /// What changed for `terminal` since version `have` with mark `mark`, when a delta can
    /// say it (``ReplicaDeltaPlan``); nil when the door must get the whole replica. Read
    /// between two reads of the version, again until they agree.
    func delta(for terminal: String, from have: Int64, mark: String, now: Date) async throws -> CredentialReplicaDelta? {
        while true {
            let current = try await keeping.replicaVersion()
            guard have > 0, have < current else { return nil }
            let shared: ReplicaBuilds.DeltaInputs?
            do {
                // Read once for every door that holds `have` while the site is at `current`.
                shared = try await builds.deltaInputs(from: have, mark: mark, to: current) { [self] in
                    let logged = try await log.changeLog(after: have - 1, limit: ReplicaDeltaPlan.maxChanges + 2)
                    guard let from = logged.first, from.sequence == have, ReplicaMark.of(from) == mark,
                        let to = logged.first(where: { $0.sequence == current }),
                        let users = ReplicaDeltaPlan.users(in: logged.dropFirst().prefix { $0.sequence <= current })
                    else { return nil }
                    let site = try await administration.siteRules()
                    let lines = try await keeping.replicaLines(of: users.sorted())
                    guard try await keeping.replicaVersion() == current else { throw ReplicaBuilds.Moved() }
                    return ReplicaBuilds.DeltaInputs(version: current, mark: ReplicaMark.of(to), users: users.sorted(), site: site, lines: lines)
                }
            } catch is ReplicaBuilds.Moved {
                continue
            }
            guard let inputs = shared else { return nil }
            // The users' part of a whole replica: their lines, rules and the schedules those name.
            let part = try Self.replica(for: terminal, version: current, site: inputs.site, records: inputs.lines.map(\.record), now: now)
            var tags: [String: String] = [:]
            for line in inputs.lines { tags[line.record.pinHash.description] = line.tag }
            let entries = part.entries.map { entry in
                CredentialReplica.Entry(
                    user: entry.user, kind: entry.kind, hash: entry.hash,
                    tag: tags[entry.hash.description].map { ReplicaTagKey.cut($0, bits: CredentialReplicaDelta.tagBits) })
            }
            return CredentialReplicaDelta(
                terminalID: terminal, fromVersion: have, fromMark: mark, version: current, mark: inputs.mark, issuedAt: now,
                users: inputs.users, entries: entries, rules: part.rules, schedules: part.schedules, holidays: part.holidays)
        }
    }

    /// The mark of `version` (nil when the log has no entry there: a version from before the
    /// log, which a door holding it can only replace whole).
    func mark(of version: Int64) async throws -> String? {
        guard version > 0, let entry = try await log.changeLog(after: version - 1, limit: 1).first, entry.sequence == version else { return nil }
        return ReplicaMark.of(entry)
    }
}
