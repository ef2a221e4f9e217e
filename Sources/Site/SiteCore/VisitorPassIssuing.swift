import Foundation
import KioskPadAccess
import KioskPadCore

/// The one way a visitor pass is issued or revoked, whatever it came through (the command
/// line, the console, the API): the code is drawn as ``CodeIssuing`` draws one (the system's
/// generator, hashed on the ``HashingPool``, never on a cooperative thread, tagged with the
/// site's lookup key when it has one), the pass stored by the store's checks and within the
/// site's ``VisitorPassLimits``, its doors checked against those the site knows, then one audit record (`visitor_pass_issue`,
/// `visitor_pass_revoke`). The code is returned once and never stored, logged or audited.
public struct VisitorPassIssuing: Sendable {
    let administration: any VerifierAdministration
    let changes: AdministratorChanges
    /// Digits of a pass's code (`server.code_length`).
    let codeLength: Int
    let limits: VisitorPassLimits
    let lookupKey: LookupKey?

    public init(
        administration: any VerifierAdministration, changes: AdministratorChanges, codeLength: Int, limits: VisitorPassLimits,
        lookupKey: LookupKey?
    ) {
        self.administration = administration
        self.changes = changes
        self.codeLength = codeLength
        self.limits = limits
        self.lookupKey = lookupKey
    }

    /// A pass issued: the pass as stored, its code (to show once), and the notes on the doors
    /// it names (``ChangeNote``: a pass may name a door not installed yet).
    public struct Issued: Sendable {
        public let pass: VisitorPass
        public let code: String
        public let notes: [ChangeNote]
    }

    /// Issues a pass for `request` at `now`; ``UserEditError`` naming the field when it is refused.
    public func issue(_ request: VisitorPassRequest, now: Date) async throws -> Issued {
        try hostsOnly(request.host)
        // A user manager limited to door groups issues passes for their doors only.
        if let groups = changes.administrator.doorGroups {
            var rule = AccessRule()
            (rule.doors, rule.levels) = (request.doors.isEmpty ? [] : request.doors, request.levels)
            guard DoorScopes.reaches(changes.administrator, rule: rule, site: try await administration.siteRules()) else {
                throw NotPermitted(
                    actor: changes.administrator.name, role: changes.administrator.role, permission: .issueVisitorPasses, limitedTo: groups,
                    door: request.doors.first)
            }
        }
        let (pass, code) = try await changes.apply(.visitorPassIssue) {
            let drawn = try await CodeIssuing.draw(length: codeLength, lookupKey: lookupKey) { hash, tag in
                try await administration.issueVisitorPass(
                    request, hash: hash, lookupTag: tag, now: now, limits: limits, issuedBy: changes.administrator.name)
            }
            return (drawn, request.auditFields(id: drawn.result.id, rule: drawn.result.rule))
        }
        return Issued(pass: pass, code: code, notes: try await KnownDoors.notes(naming: request.doors, store: changes.store, administration: administration))
    }

    /// Revokes pass `id` at `now`; ``UserEditError`` when there is none or it was revoked already.
    public func revoke(id: Int64, now: Date) async throws {
        let actor = changes.administrator
        if !actor.may(.issueVisitorPasses), let held = try await administration.visitorPass(id: id) {
            try hostsOnly(held.pass.host)
        }
        if let groups = actor.doorGroups, let held = try await administration.visitorPass(id: id),
            !DoorScopes.reaches(actor, rule: held.pass.rule, site: try await administration.siteRules())
        {
            throw NotPermitted(actor: actor.name, role: actor.role, permission: .issueVisitorPasses, limitedTo: groups, door: held.pass.rule.doors?.first)
        }
        try await changes.apply(.visitorPassRevoke, [("pass_id", String(id))]) {
            guard try await administration.revokeVisitorPass(id: id, now: now) else {
                throw UserEditError(description: "pass_id: there is no visitor pass \(id), or it was revoked already")
            }
        }
    }

    /// An operator who may issue passes only as their host (the host role) issues and revokes
    /// only passes whose host is the user of their own name.
    func hostsOnly(_ host: String) throws {
        let actor = changes.administrator
        guard !actor.may(.issueVisitorPasses) else { return }
        try actor.authorise(.visitorPassIssue)
        guard host == actor.name else {
            throw UserEditError(
                description: "host: \(actor.name) (\(actor.role.name)) issues and revokes only passes they host (host \(actor.name)), not \(host)'s")
        }
    }

    /// The passes `actor` may see: every pass with ``SitePermission/viewVisitors``, else those they host.
    public static func visible(_ passes: [VisitorPass], to actor: Administrator) -> [VisitorPass] {
        actor.may(.viewVisitors) ? passes : passes.filter { actor.may(.hostVisitorPasses) && $0.host == actor.name }
    }
}
