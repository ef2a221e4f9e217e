import Foundation
import Hummingbird
import KioskPadAccess
import KioskPadStorage
import SiteCore

/// `/api/v1/visitor-passes`: passes listed and read (scope read, never a code), issued
/// (scope `codes`; the code in the answer, once) and revoked (scope `codes`), through the same
/// ``VisitorPassIssuing`` as the console and the command line, audited the same way.
struct APIVisitorPassRoutes: Sendable {
    let changes: APIUserChanges
    var services: ConsoleServices { changes.services }

    static let fields: Set<String> = ["visitor", "host", "doors", "levels", "schedule", "valid_from", "valid_until", "max_uses"]

    /// `GET /api/v1/visitor-passes`: live and upcoming passes, and those ended in the last 30 days.
    func list(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let now = services.now()
        let (passes, zone) = try await services.administration.visitorPasses(since: now.addingTimeInterval(-30 * 86_400))
        return APIResponse.json(["visitor_passes": passes.map { Self.json($0, now: now, zone: zone) }, "time_zone": zone.identifier])
    }

    /// `GET /api/v1/visitor-passes/{id}`.
    func read(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let text = context.parameters.get("id") ?? ""
        guard let id = Int64(text), let (pass, zone) = try await services.administration.visitorPass(id: id) else {
            return APIResponse.error(.notFound, "there is no visitor pass \(text.prefix(24))")
        }
        return APIResponse.json(Self.json(pass, now: services.now(), zone: zone))
    }

    /// `POST /api/v1/visitor-passes`: `{"visitor": "Ada Lovelace", "host": "alice", "doors":
    /// ["front-door"], "levels": [], "schedule": null, "valid_from": null, "valid_until":
    /// "2026-12-01T18:00", "max_uses": 1}` (`max_uses` null: unlimited in the window).
    func issue(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let fields: StrictJSON.Fields
        switch try await APIBody.object(request, allowed: Self.fields, nullable: ["schedule", "valid_from", "max_uses"]) {
        case .failure(let refusal): return refusal.response
        case .success(let object): fields = object
        }
        let passRequest: VisitorPassRequest
        do {
            passRequest = try Self.request(fields)
        } catch let problem as APIUserCreation.FieldProblem {
            return APIResponse.error(.badRequest, problem.description)
        }
        if !context.has(.users),
            let problem = TokenAuthority.passProblem(
                passRequest, site: try await services.administration.siteRules(), maxUses: services.visitorPassMaxUses, now: services.now())
        {
            return APIResponse.error(.forbidden, problem, extra: ["scope": APIScope.users.rawValue])
        }
        do {
            let issued = try await issuing(context).issue(passRequest, now: services.now())
            let zone = try await services.administration.visitorPass(id: issued.pass.id)?.zone ?? TimeZone(identifier: "UTC")!
            var body = APIResponse.noting(issued.notes, Self.json(issued.pass, now: services.now(), zone: zone))
            body["code"] = issued.code
            return APIResponse.json(body, status: .created)
        } catch let error as UserEditError {
            return APIResponse.error(.badRequest, error.description)
        }
    }

    /// `DELETE /api/v1/visitor-passes/{id}`: revoked; 404 when there is none or it was revoked already.
    func revoke(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let text = context.parameters.get("id") ?? ""
        guard let id = Int64(text) else { return APIResponse.error(.notFound, "there is no visitor pass \(text.prefix(24))") }
        do {
            try await issuing(context).revoke(id: id, now: services.now())
        } catch let error as UserEditError {
            return APIResponse.error(.notFound, error.description)
        }
        return APIResponse.json(["id": id, "revoked": true])
    }

    /// Passes issued and revoked with this request's token, as the audit names it.
    func issuing(_ context: APIRequestContext) -> VisitorPassIssuing {
        VisitorPassIssuing(
            administration: services.administration, changes: changes.changes(context), codeLength: services.codeLength,
            limits: services.visitorPassLimits, lookupKey: services.lookupKey)
    }

    static func request(_ fields: StrictJSON.Fields) throws -> VisitorPassRequest {
        let text = { (key: String) throws -> String in
            guard let value = fields.string(key) else { throw APIUserCreation.FieldProblem("\(key) must be a string") }
            return value
        }
        let date = { (key: String) throws -> SiteDate in
            guard let date = SiteDate(parsing: try text(key)) else { throw APIUserCreation.FieldProblem("\(key) must be \(SiteDate.format)") }
            return date
        }
        var maxUses: Int?
        if fields.has("max_uses") {
            guard let count = fields.integer("max_uses"), count >= 0, count <= Int64(Int32.max) else {
                throw APIUserCreation.FieldProblem(
                    "max_uses must be a whole number from 1 to \(VisitorPassRequest.usesRange.upperBound), or null for unlimited")
            }
            maxUses = Int(count)
        } else if fields.object["max_uses"] == nil {
            maxUses = 1
        }
        return VisitorPassRequest(
            visitor: try text("visitor"), host: try text("host"),
            doors: fields.object["doors"] == nil ? [] : try APIUserCreation.names(fields, "doors"),
            levels: fields.object["levels"] == nil ? [] : try APIUserCreation.names(fields, "levels"),
            schedule: fields.has("schedule") ? try text("schedule") : nil, validFrom: fields.has("valid_from") ? try date("valid_from") : nil,
            validUntil: try date("valid_until"), maxUses: maxUses)
    }

    static func json(_ pass: VisitorPass, now: Date, zone: TimeZone) -> [String: Any] {
        let optional = { (value: Any?) in value ?? NSNull() }
        return [
            "id": pass.id, "visitor": pass.visitor, "host": pass.host, "doors": pass.rule.doors ?? [], "levels": pass.rule.levels,
            "schedule": optional(pass.rule.schedule), "valid_from": optional(pass.rule.validFrom.map { "\($0)" }),
            "valid_until": optional(pass.rule.validUntil.map { "\($0)" }), "max_uses": optional(pass.maxUses), "uses": pass.uses,
            "state": pass.state(at: now, zone: zone).rawValue, "issued": UTCTimestamp.rfc3339(pass.issued), "issued_by": pass.issuedBy,
            "revoked": optional(pass.revoked.map { UTCTimestamp.rfc3339($0) }), "last_used": optional(pass.lastUsed.map { UTCTimestamp.rfc3339($0) }),
            "last_door": optional(pass.lastDoor),
        ]
    }
}
