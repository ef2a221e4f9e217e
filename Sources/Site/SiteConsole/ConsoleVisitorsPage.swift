import Foundation
import Hummingbird
import KioskPadAccess
import KioskPadCore
import SiteCore

/// The Visitors page: issue a visitor pass (visitor, host, doors or levels, schedule, window,
/// uses), shown once as a printable pass (sent `Cache-Control: no-store`, never logged or
/// audited); the passes live or ended in the last day, with their uses; revoke.
extension ConsoleHandler {
    func visitorsPage(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        try await renderVisitors(context.visit, notice: context.form["done"] == "revoked" ? "Visitor pass revoked." : nil)
    }

    func renderVisitors(
        _ visit: Visit, notice: String? = nil, error: String? = nil, status: HTTPResponse.Status = .ok, form: [String: String] = [:]
    ) async throws -> Response {
        let now = services.now()
        let (all, zone) = try await services.administration.visitorPasses(since: now.addingTimeInterval(-86_400))
        var passes = VisitorPassIssuing.visible(all, to: visit.actor)
        // Limited to door groups: the passes for their doors.
        if visit.session.doorGroups != nil {
            let site = try await services.administration.siteRules()
            passes = passes.filter { DoorScopes.reaches(visit.actor, rule: $0.rule, site: site) }
        }
        let rows: [[String: Any]] = passes.map { pass in
            let state = pass.state(at: now, zone: zone)
            var row: [String: Any] = [
                "id": String(pass.id), "visitor": pass.visitor, "host": pass.host, "where": pass.whereText,
                "from": pass.rule.validFrom.map { "\($0)".replacingOccurrences(of: "T", with: " ") } ?? "",
                "until": pass.rule.validUntil.map { "\($0)".replacingOccurrences(of: "T", with: " ") } ?? "", "uses": pass.usesText,
                "state": state.rawValue.replacingOccurrences(of: "_", with: " "),
            ]
            if [.active, .upcoming].contains(state) { row["revocable"] = true }
            return row
        }
        let site = try await services.administration.siteRules()
        var data: [String: Any] = [
            "passes": rows, "zone": zone.identifier, "maxDays": String(services.visitorPassLimits.maxDays),
            "levels": site.access.levels.keys.sorted().map { ["name": $0] }, "schedules": site.schedules.keys.sorted().map { ["name": $0] },
        ]
        for (key, value) in form { data["form_" + key] = value }
        if data["form_uses"] == nil { data["form_uses"] = "1" }
        // A host issues passes they host: their own name.
        if !visit.actor.may(.issueVisitorPasses) { data["form_host"] = visit.admin }
        return ConsoleResponse.page("visitors", title: "Visitors", page: "visitors", visit: visit, data: data, notice: notice, error: error, status: status)
    }

    func issueVisitorPass(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        var kept: [String: String] = [:]
        for key in ["visitor", "host", "doors", "levels", "schedule", "from", "until", "uses"] { kept[key] = form.text(key) ?? "" }
        let refuse = { (problem: String) in
            try await self.renderVisitors(visit, error: "\(problem). Nothing was issued.", status: .badRequest, form: kept)
        }
        let list = { (key: String) in (form.text(key) ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
        var from: SiteDate?
        if let text = form.text("from") {
            guard let date = SiteDate(parsing: text) else { return try await refuse("Valid from: “\(text)” is not \(SiteDate.format)") }
            from = date
        }
        guard let untilText = form.text("until"), let until = SiteDate(parsing: untilText) else {
            return try await refuse("Valid until: give \(SiteDate.format)")
        }
        var maxUses: Int?
        if form.text("uses") != "unlimited" {
            guard let count = Int(form.text("uses") ?? ""), VisitorPassRequest.usesRange.contains(count) else {
                return try await refuse("Uses: give a number from 1 to \(VisitorPassRequest.usesRange.upperBound), or choose unlimited")
            }
            maxUses = count
        }
        let passRequest = VisitorPassRequest(
            visitor: form.text("visitor") ?? "", host: form.text("host") ?? "", doors: list("doors"), levels: list("levels"),
            schedule: form.text("schedule"), validFrom: from, validUntil: until, maxUses: maxUses)
        let issued: VisitorPassIssuing.Issued
        do {
            issued = try await visitorPasses(visit).issue(passRequest, now: services.now())
        } catch let error as UserEditError {
            return try await refuse(error.description)
        }
        let pass = issued.pass
        let data: [String: Any] = [
            "id": String(pass.id), "visitor": pass.visitor, "host": pass.host, "where": pass.whereText, "code": issued.code,
            "from": pass.rule.validFrom.map { "\($0)".replacingOccurrences(of: "T", with: " ") } ?? "",
            "until": pass.rule.validUntil.map { "\($0)".replacingOccurrences(of: "T", with: " ") } ?? "", "uses": pass.maxUses.map { "\($0)" } ?? "unlimited",
            "zone": try await siteZone().identifier,
        ]
        return ConsoleResponse.page(
            "visitor-pass", title: "Visitor pass", page: "visitors", visit: visit, data: data, notice: Self.notice(nil, with: issued.notes))
    }

    func revokeVisitorPass(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        guard let id = Int64(form.text("id") ?? "") else {
            return try await renderVisitors(visit, error: "That pass does not exist or was revoked already.", status: .notFound)
        }
        do {
            try await visitorPasses(visit).revoke(id: id, now: services.now())
        } catch let error as UserEditError {
            return try await renderVisitors(visit, error: error.description, status: .notFound)
        }
        return ConsoleResponse.redirect("/console/visitors?done=revoked")
    }

    func visitorPasses(_ visit: Visit) -> VisitorPassIssuing {
        VisitorPassIssuing(
            administration: services.administration, changes: changes(visit), codeLength: services.codeLength, limits: services.visitorPassLimits,
            lookupKey: services.lookupKey)
    }
}
