import Foundation
import KioskPadAccess

/// "Who can open this door, and through what" and "where can this user go, and why", from
/// the same tree and grants the evaluator decides by (``AccessLevels/grants(of:)``), for
/// the command line, the console and the API alike.
public enum AccessExplanation {
    /// One user's way through a door, or one of a user's grants.
    public struct Line: Sendable, Equatable {
        public let user: String
        public let grant: AccessGrant
        /// What stops the grant whatever the time (`disabled`, `expired`), nil when nothing does.
        public let blocked: String?
    }

    /// Every grant of every user in `users` that opens `door`, by user then grant.
    public static func door(_ door: String, site: SiteRules, users: [String], now: Date) -> [Line] {
        users.sorted().flatMap { user in
            grants(of: user, site: site, now: now).filter { $0.grant.opens(door) }
        }
    }

    /// Every grant `user` has (their own, each level, each level through each group), with
    /// what stops them all when something does.
    public static func grants(of user: String, site: SiteRules, now: Date) -> [Line] {
        let rule = site.rules[user] ?? AccessRule()
        let blocked = blocked(rule, site: site, now: now)
        var lines = site.access.grants(of: rule).map { Line(user: user, grant: $0, blocked: blocked) }
        // A disabled group's levels are listed too, marked: the administrator sees why they do not open.
        for group in rule.groups {
            guard let found = site.access.userGroups[group], found.disabled else { continue }
            for name in found.levels {
                guard let level = site.access.levels[name] else { continue }
                let grant = AccessGrant(source: .group(group, level: name), doors: site.access.doors(of: level), schedule: level.schedule)
                lines.append(Line(user: user, grant: grant, blocked: "group \(group) disabled"))
            }
        }
        return lines
    }

    /// `disabled` or `expired` (in the site's zone at `now`), or nil.
    static func blocked(_ rule: AccessRule, site: SiteRules, now: Date) -> String? {
        if rule.disabled { return "disabled" }
        let zone = site.timeZone.flatMap { TimeZone(identifier: $0) } ?? .current
        if let until = rule.validUntil, SiteTime(now, in: zone) >= until.end { return "expired" }
        return nil
    }

    /// One line as the command line prints it: `USER via SOURCE: DOORS in SCHEDULE [BLOCKED]`.
    public static func text(_ line: Line, user: Bool) -> String {
        let doors = line.grant.doors.map { $0.isEmpty ? "no door" : $0.joined(separator: ",") } ?? "every door"
        let head = user ? "\(line.user) via \(line.grant.source)" : "\(line.grant.source)"
        return "\(head): \(doors) \(line.grant.schedule.map { "in schedule \($0)" } ?? "always")" + (line.blocked.map { " (\($0))" } ?? "")
    }
}
