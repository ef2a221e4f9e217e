import Foundation
import KioskPadAccess

/// What an API token without the `users` scope may hand out (issue 78): a `codes` token issues
/// one-time and enrolment codes, and visitor passes, without reaching past the people and doors
/// it serves. It may not issue a code for a user with responder or staff standing (an
/// enrolment code sets that user's PIN, which then opens doors in a lockdown); and a visitor
/// pass opens only doors its host may open, with a bounded number of uses.
public enum TokenAuthority {
    /// Why a code for `user` is beyond a token without the `users` scope, or nil.
    public static func codeProblem(user: String, site: SiteRules) -> String? {
        guard let rule = site.rules[user], rule.responder || rule.staff else { return nil }
        let standing = [rule.responder ? "a responder" : nil, rule.staff ? "staff" : nil].compactMap { $0 }.joined(separator: " and ")
        return "\(user) is \(standing): a code for them needs a token with the users scope"
    }

    /// Why `pass` is beyond a token without the `users` scope, or nil: every door it opens (its
    /// own and its levels') must be one its host may open now, and its uses from 1 to `maxUses`.
    public static func passProblem(_ pass: VisitorPassRequest, site: SiteRules, maxUses: Int, now: Date) -> String? {
        // A count below 1 is the pass's own error (400), named where it is checked.
        guard let uses = pass.maxUses, uses <= maxUses else {
            return "max_uses must be from 1 to \(maxUses) for a token without the users scope (server.visitor_pass_max_uses)"
        }
        let host = AccessExplanation.grants(of: pass.host, site: site, now: now).filter { $0.blocked == nil }
        // The pass's levels resolved as a rule naming only them would be (not its own grant).
        let levelGrants =
            pass.levels.isEmpty
            ? [] : site.access.grants(of: AccessRule(levels: pass.levels)).filter { if case .own = $0.source { false } else { true } }
        if levelGrants.contains(where: { $0.doors == nil }), !host.contains(where: { $0.grant.doors == nil }) {
            return "a level of the pass opens every door, and host \(pass.host) may not"
        }
        let doors = Set(pass.doors + levelGrants.flatMap { $0.doors ?? [] })
        let beyond = doors.filter { door in !host.contains { $0.grant.opens(door) } }.sorted()
        guard beyond.isEmpty else {
            return "host \(pass.host) may not open \(beyond.joined(separator: ", ")): a pass from a token without the users scope opens only its host's doors"
        }
        return nil
    }
}
