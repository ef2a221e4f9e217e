import Foundation
import KioskPadCore

/// One person who may open the door with a PIN (and, optionally, a TOTP code).
public struct UserRecord: Equatable, Sendable {
    public let name: String
    public let pinHash: PINHash
    /// RFC 6238 secret for authenticator-app codes (`:totp=BASE32` on the line).
    public let totpSecret: [UInt8]?
    /// This line's PIN is the user's duress PIN (`:duress` on the line): it opens the door
    /// like any grant and raises a silent alarm.
    public let duress: Bool
    /// This line's hash is of a card number (`:card` on the line), matched only by attempts
    /// of kind `card` (a Wiegand card reader), never as a PIN.
    public let card: Bool
    /// The line's lookup tag (`:tag=ID.HEX`, see ``LookupKey``), if it has one.
    public let lookupTag: String?

    /// What the line holds, as a database row's `kind` says it: `pin`, `duress` or `card`.
    public var kind: String { duress ? "duress" : card ? "card" : "pin" }

    /// A line from a database row: its `kind` (`pin`, `duress` or `card`) and the rest.
    public init(name: String, kind: String, pinHash: PINHash, totpSecret: [UInt8]?, lookupTag: String?) {
        self.init(name: name, pinHash: pinHash, totpSecret: totpSecret, duress: kind == "duress", card: kind == "card", lookupTag: lookupTag)
    }

    public init(name: String, pinHash: PINHash, totpSecret: [UInt8]? = nil, duress: Bool = false, card: Bool = false, lookupTag: String? = nil) {
        self.name = name
        self.pinHash = pinHash
        self.totpSecret = totpSecret
        self.duress = duress
        self.card = card
        self.lookupTag = lookupTag
    }
}

/// The users file: one `NAME:HASH` line per user (`kioskpad pin hash --user NAME` makes
/// one), optionally followed by `:totp=BASE32SECRET`; a second line for the same name
/// ending in `:duress` holds that user's duress PIN; lines ending in `:card` hold the hash of
/// a card number (`printf 789888 | kioskpad pin hash --user NAME`, then `:card`), one line
/// per card. Blank lines and lines starting with `#` are ignored. Names are letters, digits, `.`, `_` and `-`.
///
/// Access rules (see ``SiteRules``) are lines starting with `@`: `@time_zone Europe/Berlin`,
/// `@schedule NAME SPEC` (a ``WeeklySchedule``), `@holiday DATE [HH:MM-HH:MM]
/// [schedule=NAME] [LABEL]` (a ``Holiday``), `@card_pin DOOR [schedule=NAME]` (a
/// ``CardAndPINRule``), `@door_group NAME doors=ID,ID`, `@level NAME doors=ID,ID
/// door_groups=NAME schedule=NAME`, `@group NAME levels=NAME,NAME [disabled]` (see
/// ``AccessLevels``) and `@access NAME doors=ID,ID schedule=NAME levels=.. groups=.. valid_from=DATE
/// valid_until=DATE disabled responder staff` (any of them, for a user in the file).
public struct UsersFile: Equatable, Sendable {
    public let users: [UserRecord]
    /// The site's time zone, schedules and the users' rules (empty: every user, every door, always).
    public let site: SiteRules

    /// A problem in a users file, naming the file and line.
    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public let source: String
        public let line: Int
        public let reason: String
        public var description: String { "\(source) line \(line): \(reason)" }
    }

    /// Line indices by lookup tag, and the lines without one (for ``match(_:kind:lookup:)``).
    private let tagged: [String: [Int]]
    private let untagged: [Int]
    /// Tagged line indices by the id of the key that tagged them.
    private let taggedByKey: [String: [Int]]
    /// What a denial with no candidate line checks: the work factor of the file's first line.
    private let decoy: PINHash

    public init(users: [UserRecord], site: SiteRules = SiteRules()) {
        self.users = users
        self.site = site
        var tagged: [String: [Int]] = [:]
        var untagged: [Int] = []
        var taggedByKey: [String: [Int]] = [:]
        for (index, user) in users.enumerated() {
            guard let tag = user.lookupTag else {
                untagged.append(index)
                continue
            }
            tagged[tag, default: []].append(index)
            taggedByKey[LookupKey.keyID(ofTag: tag), default: []].append(index)
        }
        self.tagged = tagged
        self.untagged = untagged
        self.taggedByKey = taggedByKey
        let iterations = users.first?.pinHash.iterations ?? PINHash.defaultIterations
        decoy = PINHash(iterations: iterations, salt: [UInt8](repeating: 0, count: 16), hash: [UInt8](repeating: 0, count: 32))
    }

    public init(parsing text: String, source: String) throws {
        var users: [UserRecord] = []
        var seen: Set<String> = []
        var seenDuress: Set<String> = []
        var site = SiteRules()
        var ruleLines: [String: Int] = [:]
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fail = { (reason: String) in ParseError(source: source, line: index + 1, reason: reason) }
            if line.hasPrefix("@") {
                do {
                    try Self.directive(line, into: &site, ruleLines: &ruleLines, line: index + 1)
                } catch let error as AccessRule.RuleError {
                    throw fail(error.description)
                }
                continue
            }
            let fields = line.split(separator: ":", omittingEmptySubsequences: false)
            guard fields.count >= 2 else {
                throw fail("expected NAME:HASH (make a line with `kioskpad pin hash --user NAME`)")
            }
            let name = String(fields[0])
            guard UsersFile.isValidName(name) else {
                throw fail("user name '\(name)' must be 1-64 of letters, digits, '.', '_' or '-'")
            }
            var totp: [UInt8]?
            var duress = false
            var card = false
            var tag: String?
            for option in fields.dropFirst(2) {
                if option == "duress" || option == "card" {
                    if option == "duress" { duress = true } else { card = true }
                    continue
                }
                if option.hasPrefix("tag=") {
                    guard LookupKey.isTag(option.dropFirst(4)) else {
                        throw fail("user '\(name)': tag= must be 8 hex digits, '.', then 32 (written by `kioskpad verifier user`)")
                    }
                    tag = String(option.dropFirst(4))
                    continue
                }
                guard option.hasPrefix("totp="), let secret = TOTP.base32Decode(String(option.dropFirst(5))), secret.count >= 10 else {
                    throw fail(
                        "user '\(name)': '\(option.prefix(5))...' is not a known option; valid: totp=BASE32SECRET (at least 16 base32 characters), duress or card (and tag=, which `kioskpad verifier user` writes)"
                    )
                }
                totp = secret
            }
            if duress && totp != nil { throw fail("user '\(name)': a duress line holds only a PIN; put totp= on the user's normal line") }
            if card && (duress || totp != nil) { throw fail("user '\(name)': a card line holds only a card number's hash; no duress or totp= on it") }
            let isNew = card || (duress ? seenDuress.insert(name).inserted : seen.insert(name).inserted)
            guard isNew else {
                throw fail(duress ? "user '\(name)' has two duress lines" : "user '\(name)' is listed twice")
            }
            do {
                users.append(UserRecord(name: name, pinHash: try PINHash(parsing: fields[1]), totpSecret: totp, duress: duress, card: card, lookupTag: tag))
            } catch let error as PINHash.FormatError {
                throw fail("user '\(name)': \(error)")
            }
        }
        let names = Set(users.map(\.name))
        for (name, rule) in site.rules.sorted(by: { $0.key < $1.key }) {
            let fail = { (reason: String) in ParseError(source: source, line: ruleLines[name] ?? 0, reason: reason) }
            guard names.contains(name) else { throw fail("@access \(name): no user '\(name)' in this file") }
            if let schedule = rule.schedule, site.schedules[schedule] == nil {
                throw fail("@access \(name): schedule '\(schedule)' is not defined here (add a line @schedule \(schedule) SPEC)")
            }
            if let undefined = site.access.undefined(in: rule) {
                throw fail("@access \(name): \(undefined) here (add a line @level or @group)")
            }
        }
        if let undefined = site.access.undefined(schedules: Set(site.schedules.keys)) {
            throw ParseError(source: source, line: ruleLines["@access-tree"] ?? 0, reason: "\(undefined) here")
        }
        for holiday in site.holidays {
            if let schedule = holiday.schedule, site.schedules[schedule] == nil {
                throw ParseError(
                    source: source, line: ruleLines["@holiday \(holiday.day)"] ?? 0,
                    reason: "@holiday \(holiday.day): schedule '\(schedule)' is not defined here (add a line @schedule \(schedule) SPEC)")
            }
        }
        for (door, rule) in site.cardAndPIN.sorted(by: { $0.key < $1.key }) {
            if let schedule = rule.schedule, site.schedules[schedule] == nil {
                throw ParseError(
                    source: source, line: ruleLines["@card_pin \(door)"] ?? 0,
                    reason: "@card_pin \(door): schedule '\(schedule)' is not defined here (add a line @schedule \(schedule) SPEC)")
            }
        }
        site.holidays.sort { $0.day.start < $1.day.start }
        self.init(users: users, site: site)
    }

    /// One `@` line: the site's zone, a schedule, or a user's rule; checked as it is read.
    private static func directive(_ line: String, into site: inout SiteRules, ruleLines: inout [String: Int], line number: Int) throws {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        let fail = { (why: String) in AccessRule.RuleError(description: why) }
        switch words.first {
        case "@time_zone":
            guard words.count == 2 else { throw fail("write @time_zone ZONE, e.g. @time_zone Europe/Berlin") }
            guard site.timeZone == nil else { throw fail("@time_zone is given twice") }
            _ = try SiteRules.zone(String(words[1]))
            site.timeZone = String(words[1])
        case "@schedule":
            guard words.count >= 3 else { throw fail("write @schedule NAME SPEC, e.g. @schedule cleaning mon-fri 18:00-21:00") }
            let name = String(words[1])
            guard Identifier.isValid(name), name != "always" else {
                throw fail("@schedule \(name): a schedule name is 1-64 of letters, digits, '.', '_' or '-' (not always)")
            }
            guard site.schedules[name] == nil else { throw fail("@schedule \(name) is given twice") }
            let spec = words.dropFirst(2).joined(separator: " ")
            do {
                _ = try WeeklySchedule(parsing: spec)
            } catch let error as WeeklySchedule.SpecError {
                throw fail("@schedule \(name): \(error.description)")
            }
            site.schedules[name] = spec
        case "@access":
            guard words.count >= 3 else { throw fail("write @access NAME doors=ID,ID schedule=NAME valid_from=DATE valid_until=DATE disabled (any of them)") }
            let name = String(words[1])
            guard ruleLines[name] == nil else { throw fail("@access \(name) is given twice") }
            do {
                site.rules[name] = try AccessRule(fields: Array(words.dropFirst(2)))
            } catch let error as AccessRule.RuleError {
                throw fail("@access \(name): \(error.description)")
            }
            ruleLines[name] = number
        case "@holiday":
            guard words.count >= 2 else { throw fail("write @holiday \(Holiday.grammar)") }
            let holiday = try Holiday(day: String(words[1]), words: Array(words.dropFirst(2)))
            let key = "@holiday \(holiday.day)"
            guard ruleLines[key] == nil else { throw fail("@holiday \(holiday.day) is given twice") }
            ruleLines[key] = number
            site.holidays.append(holiday)
        case "@card_pin":
            guard words.count >= 2, Identifier.isValid(String(words[1])) else {
                throw fail("write \(CardAndPINRule.grammar); DOOR is a terminal_id (1-64 of letters, digits, '.', '_' or '-')")
            }
            let door = String(words[1])
            let key = "@card_pin \(door)"
            guard ruleLines[key] == nil else { throw fail("\(key) is given twice") }
            ruleLines[key] = number
            site.cardAndPIN[door] = try CardAndPINRule(words: Array(words.dropFirst(2)))
        case "@door_group", "@level", "@group":
            let kind = String(words[0])
            guard words.count >= 2, Identifier.isValid(String(words[1])) else {
                throw fail("write \(kind) NAME followed by its fields; NAME is 1-64 of letters, digits, '.', '_' or '-'")
            }
            let name = String(words[1])
            let key = "\(kind) \(name)"
            guard ruleLines[key] == nil else { throw fail("\(key) is given twice") }
            ruleLines[key] = number
            ruleLines["@access-tree"] = ruleLines["@access-tree"] ?? number
            let fields = Array(words.dropFirst(2))
            do {
                switch kind {
                case "@door_group": site.access.doorGroups[name] = try DoorGroup(fields: fields)
                case "@level": site.access.levels[name] = try AccessLevel(fields: fields)
                default: site.access.userGroups[name] = try UserGroup(fields: fields)
                }
            } catch let error as AccessRule.RuleError {
                throw fail("\(key): \(error.description)")
            }
        default:
            throw fail("'\(words.first ?? "")' is not a known line; valid: @time_zone, @schedule, @holiday, @door_group, @level, @group, @access, @card_pin")
        }
    }

    /// The user whose PIN `value` is, and whether it was their duress PIN; every line's hash
    /// is checked (no early exit), so the time taken does not reveal which line matched.
    public func match(pin value: SecretDigits) -> (name: String, duress: Bool)? {
        firstMatch(value, card: false, among: users.indices).matched
    }

    /// The user whose card `value` is (only `:card` lines; each is checked, no early exit).
    public func match(card value: SecretDigits) -> String? {
        firstMatch(value, card: true, among: users.indices).matched?.name
    }

    /// Checks the hash of every line in `indices` that is a card line or not as `card` says
    /// (no early exit); returns the first that matched and how many were checked.
    private func firstMatch(
        _ value: SecretDigits, card: Bool, among indices: some Sequence<Int>
    ) -> (matched: (name: String, duress: Bool)?, checked: Int) {
        var matched: (name: String, duress: Bool)?
        var checked = 0
        for index in indices where users[index].card == card {
            let user = users[index]
            checked += 1
            if user.pinHash.matches(value) { matched = matched ?? (user.name, user.duress) }
        }
        return (matched, checked)
    }

    /// The user for an attempt of `kind`: a card against card lines, a PIN or code against
    /// PIN lines.
    public func match(_ value: SecretDigits, kind: AttemptKind) -> (name: String, duress: Bool)? {
        kind == .card ? match(card: value).map { ($0, false) } : match(pin: value)
    }

    /// As ``match(_:kind:)``, but with `lookup` only the lines whose tag is the value's, and
    /// the lines without a tag of this key, are checked: O(1) PBKDF2 computations at any
    /// number of tagged users. When no line is a candidate, one PBKDF2 is computed anyway, so
    /// a denial takes as long as a grant.
    public func match(_ value: SecretDigits, kind: AttemptKind, lookup: LookupKey?) -> (name: String, duress: Bool)? {
        match(value, kind: kind, tagged: lookup.map { (tag: $0.tag(value, kind: kind), keyID: $0.id) })
    }

    /// As ``match(_:kind:lookup:)``, with the value's tag already computed by the key `keyID`
    /// (a caller that looked the tag up in a database computes it once).
    public func match(_ value: SecretDigits, kind: AttemptKind, tagged: (tag: String, keyID: String)?) -> (name: String, duress: Bool)? {
        guard let tagged else { return match(value, kind: kind) }
        // Lines tagged under another key are checked like untagged ones.
        let otherKeys = taggedByKey.filter { $0.key != tagged.keyID }.values.joined()
        let (matched, checked) = firstMatch(value, card: kind == .card, among: (self.tagged[tagged.tag] ?? []) + untagged + otherKeys)
        if checked == 0 { _ = decoy.matches(value) }
        return matched
    }

    /// The user whose card `card` is, when `pin` is that same user's own PIN or duress PIN
    /// (a card-and-PIN door): the card as ``match(_:kind:tagged:)`` finds it, then every PIN
    /// line of its holder. When the card matches nobody, or its holder has no PIN, one
    /// PBKDF2 is computed anyway, so a wrong card takes as long as a wrong PIN.
    public func match(card: SecretDigits, pin: SecretDigits, tagged: (tag: String, keyID: String)?) -> (name: String, duress: Bool)? {
        guard let holder = match(card, kind: .card, tagged: tagged)?.name else {
            _ = decoy.matches(pin)
            return nil
        }
        return match(pin: pin, of: holder)
    }

    /// Whether `pin` is `name`'s PIN or duress PIN (each of their PIN lines is checked, no
    /// early exit); one PBKDF2 on a decoy when they have none.
    public func match(pin: SecretDigits, of name: String) -> (name: String, duress: Bool)? {
        let (matched, checked) = firstMatch(pin, card: false, among: users.indices.filter { users[$0].name == name })
        if checked == 0 { _ = decoy.matches(pin) }
        return matched
    }

    public static func load(path: String) throws -> UsersFile {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ParseError(source: path, line: 0, reason: "cannot read the users file (\(error.localizedDescription))")
        }
        return try UsersFile(parsing: text, source: path)
    }

    public static func isValidName(_ name: String) -> Bool {
        Identifier.isValid(name)
    }

    /// The line for `user` as it belongs in the file: its hash, then `totp=`, `duress` or
    /// `card`, and its lookup tag.
    public static func line(for user: UserRecord) -> String {
        var fields = [user.name, user.pinHash.description]
        if let secret = user.totpSecret { fields.append("totp=" + TOTP.base32Encode(secret)) }
        if user.duress { fields.append("duress") }
        if user.card { fields.append("card") }
        if let tag = user.lookupTag { fields.append("tag=" + tag) }
        return fields.joined(separator: ":")
    }

    /// The whole file for `users`, one line each, then the site's rules (`@` lines), under a
    /// comment that says what it is.
    public static func text(for users: [UserRecord], site: SiteRules = SiteRules(), header: String) -> String {
        var text = "# \(header)\n" + users.map { line(for: $0) + "\n" }.joined()
        if let zone = site.timeZone { text += "@time_zone \(zone)\n" }
        for (name, spec) in site.schedules.sorted(by: { $0.key < $1.key }) { text += "@schedule \(name) \(spec)\n" }
        for holiday in site.holidays { text += "@holiday \(holiday.line)\n" }
        for (door, rule) in site.cardAndPIN.sorted(by: { $0.key < $1.key }) {
            text += "@card_pin \(door)" + (rule.schedule.map { " schedule=\($0)" } ?? "") + "\n"
        }
        for (name, group) in site.access.doorGroups.sorted(by: { $0.key < $1.key }) { text += "@door_group \(name) \(group.text)\n" }
        for (name, level) in site.access.levels.sorted(by: { $0.key < $1.key }) {
            text += "@level \(name)" + level.fields.map { " " + $0 }.joined() + "\n"
        }
        for (name, group) in site.access.userGroups.sorted(by: { $0.key < $1.key }) { text += "@group \(name) \(group.text)\n" }
        for (name, rule) in site.rules.sorted(by: { $0.key < $1.key }) where !rule.isDefault {
            text += "@access \(name) \(rule.text)\n"
        }
        return text
    }

    /// The line for `name` as it belongs in the file.
    public static func line(name: String, hash: PINHash) -> String {
        "\(name):\(hash)"
    }
}
