import Foundation
import KioskPadAccess
import KioskPadCore

/// The one way a visitor pass is issued or revoked, whatever it came through (the command
/// line, the console, the API): the code is made from the system's generator and hashed on
/// the ``HashingPool`` (never on a cooperative thread), the pass stored by the store's checks,
/// then one audit record (`visitor_pass_issue`, `visitor_pass_revoke`). The code is returned
/// once and never stored, logged or audited.
public struct VisitorPassIssuing: Sendable {
    let administration: any VisitorPassAdministration
    let changes: AdministratorChanges
    /// Digits of a pass's code (`server.code_length`).
    let codeLength: Int
    /// The longest window a pass may have (`server.visitor_pass_max_days`).
    let maxDays: Int

    public init(administration: any VisitorPassAdministration, changes: AdministratorChanges, codeLength: Int, maxDays: Int) {
        self.administration = administration
        self.changes = changes
        self.codeLength = codeLength
        self.maxDays = maxDays
    }

    /// A pass issued: the pass as stored, and its code (to show once).
    public struct Issued: Sendable {
        public let pass: VisitorPass
        public let code: String
    }

    /// Issues a pass for `request` at `now`; ``UserEditError`` naming the field when it is refused.
    public func issue(_ request: VisitorPassRequest, now: Date) async throws -> Issued {
        let code = OneTimeCode.make(length: codeLength)
        let hash = try await HashingPool.shared.makeHash(code, iterations: OneTimeCode.hashIterations, lane: .console)
        let pass = try await changes.apply(.visitorPassIssue) {
            let pass = try await administration.issueVisitorPass(request, hash: hash, now: now, maxDays: maxDays, issuedBy: changes.administrator.name)
            return (pass, request.auditFields(id: pass.id, rule: pass.rule))
        }
        return Issued(pass: pass, code: code.withASCIIBytes { String(decoding: $0, as: UTF8.self) })
    }

    /// Revokes pass `id` at `now`; ``UserEditError`` when there is none or it was revoked already.
    public func revoke(id: Int64, now: Date) async throws {
        try await changes.apply(.visitorPassRevoke, [("pass_id", String(id))]) {
            guard try await administration.revokeVisitorPass(id: id, now: now) else {
                throw UserEditError(description: "pass_id: there is no visitor pass \(id), or it was revoked already")
            }
        }
    }
}
