import Foundation
import KioskPadAccess
import KioskPadCore

/// A visitor pass as the site keeps it: a code given to a visitor on behalf of a host user,
/// valid in a window of the site's time, at chosen doors (optionally only in a schedule's
/// windows) or through access levels, for a number of uses or unlimited in its window. The
/// code is shown once when issued and kept only as a salted hash.
///
/// A pass is decided by the site only: a door deciding alone (offline, from its replica or
/// users file) never sees a pass and refuses it, so no pass is used more times than it
/// allows, however many doors are cut off at once.
public struct VisitorPass: Sendable, Equatable {
    public let id: Int64
    /// The visitor's name as the pass, the audit and the console show it.
    public let visitor: String
    /// The user the visitor comes to see; a removed or disabled host's passes open nothing.
    public let host: String
    /// Where and when: its doors (and their schedule), its levels and its window, in the words
    /// of a user's rule (`doors= schedule= levels= valid_from= valid_until=`).
    public let rule: AccessRule
    /// How many entries it allows; nil: any number within its window.
    public let maxUses: Int?
    public let uses: Int
    public let issued: Date
    /// The administrator who issued it, as the audit names them.
    public let issuedBy: String
    public let revoked: Date?
    public let lastUsed: Date?
    public let lastDoor: String?

    public init(
        id: Int64, visitor: String, host: String, rule: AccessRule, maxUses: Int?, uses: Int, issued: Date, issuedBy: String,
        revoked: Date? = nil, lastUsed: Date? = nil, lastDoor: String? = nil
    ) {
        self.id = id
        self.visitor = visitor
        self.host = host
        self.rule = rule
        self.maxUses = maxUses
        self.uses = uses
        self.issued = issued
        self.issuedBy = issuedBy
        self.revoked = revoked
        self.lastUsed = lastUsed
        self.lastDoor = lastDoor
    }

    /// Where a pass stands, by the word lists and the API use.
    public enum State: String, Sendable, CaseIterable {
        /// Its window has not begun.
        case upcoming
        case active
        /// Every use it allows was made.
        case usedUp = "used_up"
        case expired
        case revoked
    }

    /// Its state at `now` in the site's `zone`.
    public func state(at now: Date, zone: TimeZone) -> State {
        if revoked != nil { return .revoked }
        if let maxUses, uses >= maxUses { return .usedUp }
        let local = SiteTime(now, in: zone)
        if let until = rule.validUntil, local >= until.end { return .expired }
        if let from = rule.validFrom, local < from.start { return .upcoming }
        return .active
    }

    /// "3 of 5" or "2 (unlimited)".
    public var usesText: String { maxUses.map { "\(uses) of \($0)" } ?? "\(uses) (unlimited)" }

    /// Its doors and levels as a person reads them: "front-door, lobby (office-hours); level staff".
    public var whereText: String {
        var parts: [String] = []
        if let doors = rule.doors, !doors.isEmpty {
            parts.append(doors.joined(separator: ", ") + (rule.schedule.map { " (\($0))" } ?? ""))
        }
        if !rule.levels.isEmpty { parts.append((rule.levels.count == 1 ? "level " : "levels ") + rule.levels.joined(separator: ", ")) }
        return parts.joined(separator: "; ")
    }
}

/// A live pass as an attempt checks it: its hash, never its code.
public struct IssuedVisitorPass: Sendable, Equatable {
    public let id: Int64
    public let visitor: String
    public let host: String
    public let hash: PINHash
    /// Its rule's text (``AccessRule/fields``), decided like a user's.
    public let ruleText: String

    public init(id: Int64, visitor: String, host: String, hash: PINHash, ruleText: String) {
        self.id = id
        self.visitor = visitor
        self.host = host
        self.hash = hash
        self.ruleText = ruleText
    }
}

/// What an administrator asks for when issuing a pass, checked by ``check(now:zone:maxDays:)``
/// before anything is stored; each problem names its field.
public struct VisitorPassRequest: Sendable, Equatable {
    public var visitor: String
    public var host: String
    public var doors: [String]
    public var levels: [String]
    /// Limits the pass's `doors` to a schedule's windows (a level keeps its own schedule).
    public var schedule: String?
    /// Nil: from now.
    public var validFrom: SiteDate?
    public var validUntil: SiteDate
    /// Nil: unlimited within the window.
    public var maxUses: Int?

    public init(
        visitor: String, host: String, doors: [String] = [], levels: [String] = [], schedule: String? = nil, validFrom: SiteDate? = nil,
        validUntil: SiteDate, maxUses: Int? = 1
    ) {
        self.visitor = visitor
        self.host = host
        self.doors = doors
        self.levels = levels
        self.schedule = schedule
        self.validFrom = validFrom
        self.validUntil = validUntil
        self.maxUses = maxUses
    }

    /// The most uses a counted pass may allow.
    public static let usesRange = 1...10_000

    /// What a visitor's name may be: 1-64 letters, digits, spaces and `.`, `'`, `-`, `_`,
    /// not starting or ending with a space.
    public static func visitorProblem(_ name: String) -> String? {
        let allowed = name.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || " .'-_".unicodeScalars.contains($0) }
        guard (1...64).contains(name.count), allowed, name.first != " ", name.last != " " else {
            return "visitor: a visitor's name is 1-64 letters, digits, spaces, '.', ''', '-' or '_' (e.g. Ada Lovelace)"
        }
        return nil
    }

    /// The pass's rule, with its window's start: `validFrom`, or `now` to the minute in `zone`.
    public func rule(now: Date, zone: TimeZone) -> AccessRule {
        AccessRule(
            doors: doors.isEmpty && !levels.isEmpty ? [] : doors, schedule: schedule, validFrom: validFrom ?? Self.minute(now, zone),
            validUntil: validUntil, levels: levels)
    }

    /// The problem with this request at `now` in the site's `zone`, naming the field: a bad
    /// name, no doors and no levels, a window that ends before it starts or in the past or is
    /// longer than `maxDays`, a use count out of range. Names are checked against the site by
    /// the store, in the transaction that stores the pass.
    public func check(now: Date, zone: TimeZone, maxDays: Int) throws {
        if let problem = Self.visitorProblem(visitor) { throw UserEditError(description: problem) }
        guard Identifier.isValid(host) else {
            throw UserEditError(description: "host: '\(host)' is not a user name (1-64 of letters, digits, '.', '_' or '-')")
        }
        guard !doors.isEmpty || !levels.isEmpty else {
            throw UserEditError(description: "doors: a pass opens at least one door; give doors (terminal_id), levels, or both")
        }
        for door in doors where !Identifier.isValid(door) {
            throw UserEditError(description: "doors: '\(door)' is not a door id (1-64 of letters, digits, '.', '_' or '-')")
        }
        if let maxUses, !Self.usesRange.contains(maxUses) {
            throw UserEditError(
                description: "max_uses: \(maxUses) is not from 1 to \(Self.usesRange.upperBound) (leave it out for unlimited within the window)")
        }
        let start = (validFrom ?? Self.minute(now, zone)).start
        let end = validUntil.end
        guard end > SiteTime(now, in: zone) else {
            throw UserEditError(description: "valid_until: \(validUntil) has passed in the site's time zone (\(zone.identifier))")
        }
        guard end > start else {
            throw UserEditError(description: "valid_until: \(validUntil) is not after the pass's start (\(validFrom ?? Self.minute(now, zone)))")
        }
        guard end.localSeconds - start.localSeconds <= Int64(maxDays) * 86_400 else {
            throw UserEditError(description: "valid_until: the pass would last more than the site allows (\(maxDays) days, server.visitor_pass_max_days)")
        }
    }

    /// The audit record's fields of the issued pass `id` (never its code).
    public func auditFields(id: Int64, rule: AccessRule) -> [(String, String)] {
        [
            ("pass_id", String(id)), ("visitor", visitor), ("host", host), ("rule", rule.text),
            ("max_uses", maxUses.map(String.init) ?? "unlimited"),
        ]
    }

    /// `instant` to the minute in `zone`, as a window bound.
    static func minute(_ instant: Date, _ zone: TimeZone) -> SiteDate {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: instant)
        let text = String(format: "%04d-%02d-%02dT%02d:%02d", parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1, parts.hour ?? 0, parts.minute ?? 0)
        return SiteDate(parsing: text) ?? SiteDate(parsing: "1970-01-01")!
    }

    /// The instant `time` (local seconds in `zone`) is, near enough for a live filter (the
    /// decision itself reads the window in the site's time).
    public static func instant(_ time: SiteTime, in zone: TimeZone) -> Date {
        let guess = Date(timeIntervalSince1970: TimeInterval(time.localSeconds))
        return guess.addingTimeInterval(-TimeInterval(zone.secondsFromGMT(for: guess)))
    }
}

/// The visitor passes an administrator issues, lists and revokes (by the command line, the
/// console or the API, each through ``VisitorPassIssuing``).
public protocol VisitorPassAdministration: Sendable {
    /// Stores a pass for `request` with the code's `hash` and lookup tag, in one transaction
    /// that first reads the site's zone and checks the request
    /// (``VisitorPassRequest/check(now:zone:maxDays:)``), that the host is a user and that its
    /// levels and schedule exist, and that the host and the site are within `limits`' live
    /// passes; the stored pass. ``CodeTagInUse`` when a live code or pass has `lookupTag`.
    func issueVisitorPass(
        _ request: VisitorPassRequest, hash: PINHash, lookupTag: String?, now: Date, limits: VisitorPassLimits, issuedBy: String
    ) async throws -> VisitorPass
    /// Every pass that has not ended before `since` (ended: revoked, used up or expired), and
    /// the site's time zone to read their windows in; newest first.
    func visitorPasses(since: Date) async throws -> (passes: [VisitorPass], zone: TimeZone)
    /// Pass `id`, whatever its state, and the site's time zone; nil when there is none.
    func visitorPass(id: Int64) async throws -> (pass: VisitorPass, zone: TimeZone)?
    /// Revokes pass `id` at `now`; false when there is no such pass or it was revoked already.
    func revokeVisitorPass(id: Int64, now: Date) async throws -> Bool
}
