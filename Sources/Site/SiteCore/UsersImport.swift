import KioskPadAccess

/// `kioskpad verifier import`: which lines of a users file to add to the database. A user
/// the database does not have is added whole; one it has with the same lines (hashes, tags,
/// TOTP secret) is left alone, so a second run adds nothing; one it has with other lines is
/// a clash, and one clash adds nothing at all.
public enum UsersImport {
    /// The users whose lines differ between the file and the database, each named, and
    /// the rules (zone, schedules, a user's access) that differ.
    public struct Clash: Error, Equatable, CustomStringConvertible {
        public let users: [String]
        public var rules: [String] = []
        public var description: String {
            (users.map { "user '\($0)' is in the database with other lines (PIN, duress PIN, cards or TOTP secret)" } + rules)
                .joined(separator: "\n")
        }
    }

    /// What an import writes: new lines, the zone (nil: unchanged), schedules and rules.
    public struct Plan: Sendable {
        public var records: [UserRecord]
        public var timeZone: String?
        public var schedules: [(String, String)]
        public var rules: [(String, AccessRule)]
        public var holidays: [Holiday] = []
        /// Doors' card-and-PIN rules (`@card_pin`) the database does not have.
        public var cardAndPIN: [(String, CardAndPINRule)] = []
        /// Door groups, levels and user groups (`@door_group`, `@level`, `@group`) the database
        /// does not have: kind, name, definition.
        public var accessGroups: [(AccessGroupKind, String, [String])] = []
    }

    /// The lines and rules of `file` to write to a database that holds `existing` and
    /// `site`. An import adds; it never changes what is there (`verifier user set`,
    /// `schedule set` and `site set` do): a schedule the database has with another spec, an
    /// `@access` line that differs from the rule of a user already there, or another
    /// `@time_zone` once the database has schedules or rules, is a clash. A user already
    /// there without an `@access` line in the file keeps their rule.
    public static func plan(_ file: UsersFile, existing: [UserRecord], site: SiteRules) throws -> Plan {
        var clash = Clash(users: [])
        var records: [UserRecord] = []
        do {
            records = try plan(file, existing: existing)
        } catch let found as Clash {
            clash = found
        }
        var timeZone: String?
        if let zone = file.site.timeZone, zone != site.timeZone {
            // A new database has the host's zone; nothing depends on it before rules exist.
            if site.timeZone == nil || (site.schedules.isEmpty && site.rules.isEmpty) {
                timeZone = zone
            } else {
                clash.rules.append(
                    "@time_zone \(zone): the database's site zone is \(site.timeZone ?? "") and its rules use it (change it with `kioskpad verifier site set --time-zone`)"
                )
            }
        }
        var schedules: [(String, String)] = []
        for (name, spec) in file.site.schedules.sorted(by: { $0.key < $1.key }) {
            switch site.schedules[name] {
            case nil: schedules.append((name, spec))
            case spec: break
            case let stored?: clash.rules.append("@schedule \(name): the database has it as \"\(stored)\"")
            }
        }
        var holidays: [Holiday] = []
        let storedHolidays = Dictionary(site.holidays.map { ($0.day.description, $0) }, uniquingKeysWith: { $1 })
        for holiday in file.site.holidays {
            switch storedHolidays[holiday.day.description] {
            case nil: holidays.append(holiday)
            case let stored? where stored.rule == holiday.rule: break
            case let stored?: clash.rules.append("@holiday \(holiday.day): the database has it as \"\(stored.line)\"")
            }
        }
        var cardAndPIN: [(String, CardAndPINRule)] = []
        for (door, rule) in file.site.cardAndPIN.sorted(by: { $0.key < $1.key }) {
            switch site.cardAndPIN[door] {
            case nil: cardAndPIN.append((door, rule))
            case rule: break
            case let stored?: clash.rules.append("@card_pin \(door): the database has it as \"\(stored.rule)\"")
            }
        }
        var accessGroups: [(AccessGroupKind, String, [String])] = []
        let tree = file.site.access
        let entries: [(AccessGroupKind, String, [String], [String]?, String)] =
            tree.doorGroups.sorted { $0.key < $1.key }.map { (.doorGroup, $0.key, $0.value.fields, site.access.doorGroups[$0.key]?.fields, "@door_group") }
            + tree.levels.sorted { $0.key < $1.key }.map { (.level, $0.key, $0.value.fields, site.access.levels[$0.key]?.fields, "@level") }
            + tree.userGroups.sorted { $0.key < $1.key }.map { (.userGroup, $0.key, $0.value.fields, site.access.userGroups[$0.key]?.fields, "@group") }
        for (kind, name, fields, stored, line) in entries {
            switch stored {
            case nil: accessGroups.append((kind, name, fields))
            case fields: break
            case let stored?: clash.rules.append("\(line) \(name): the database has it as \"\(stored.joined(separator: " "))\"")
            }
        }
        let existingNames = Set(existing.map(\.name))
        var rules: [(String, AccessRule)] = []
        for name in Set(file.users.map(\.name)).sorted() {
            let stored = site.rules[name] ?? AccessRule()
            if !existingNames.contains(name) {
                if let wanted = file.site.rules[name], !wanted.isDefault { rules.append((name, wanted)) }
            } else if let wanted = file.site.rules[name], wanted != stored {
                clash.rules.append(
                    "user '\(name)': the database has other access rules (\(stored.isDefault ? "every door, always" : stored.text))")
            }
        }
        guard clash.users.isEmpty, clash.rules.isEmpty else { throw clash }
        var plan = Plan(records: records, timeZone: timeZone, schedules: schedules, rules: rules, holidays: holidays)
        plan.cardAndPIN = cardAndPIN
        plan.accessGroups = accessGroups
        return plan
    }

    /// The lines of `file` to add to a database that holds `existing`; throws ``Clash``.
    public static func plan(_ file: UsersFile, existing: [UserRecord]) throws -> [UserRecord] {
        let have = Dictionary(grouping: existing, by: \.name)
        var adding: [UserRecord] = []
        var clashes: [String] = []
        var seen: Set<String> = []
        for user in file.users where seen.insert(user.name).inserted {
            let lines = file.users.filter { $0.name == user.name }
            guard let stored = have[user.name] else {
                adding += lines
                continue
            }
            if !sameLines(lines, stored) { clashes.append(user.name) }
        }
        guard clashes.isEmpty else { throw Clash(users: clashes) }
        return adding
    }

    /// The same lines in any order (each line's kind, hash, tag and TOTP secret).
    private static func sameLines(_ a: [UserRecord], _ b: [UserRecord]) -> Bool {
        let key = { (user: UserRecord) in
            "\(user.duress) \(user.card) \(user.pinHash) \(user.lookupTag ?? "-") \(user.totpSecret.map { TOTP.base32Encode($0) } ?? "-")"
        }
        return a.map(key).sorted() == b.map(key).sorted()
    }
}
