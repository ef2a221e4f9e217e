import Foundation
import Hummingbird
import KioskPadAccess
import KioskPadCore
import SiteCore

/// The Codes page: issue a one-time code (user, door, expiry), shown once on its own page
/// (sent `Cache-Control: no-store`, never logged or audited), list unused codes, revoke.
extension ConsoleHandler {
    func codesPage(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        return try await renderCodes(visit, notice: form["done"] == "revoked" ? "Code revoked." : nil)
    }

    func renderCodes(_ visit: Visit, notice: String? = nil, error: String? = nil, status: HTTPResponse.Status = .ok) async throws -> Response {
        let zone = try await siteZone()
        var unused = try await services.console.unusedCodes(now: services.now())
        // Limited to door groups: the codes of the users whose access lies there.
        if visit.session.doorGroups != nil {
            let site = try await services.administration.siteRules()
            unused = unused.filter { DoorScopes.reaches(visit.actor, rule: site.rules[$0.user] ?? AccessRule(), site: site) }
        }
        let codes: [[String: Any]] = unused.map { code in
            [
                "id": String(code.id), "user": code.user, "purpose": code.enrolment ? "choosing a PIN" : "entry",
                "door": code.door ?? (code.enrolment ? "" : "any"), "expires": ConsoleTime.local(code.expires, zone),
            ]
        }
        return ConsoleResponse.page(
            "codes", title: "One-time codes", page: "codes", visit: visit, data: ["codes": codes], notice: notice, error: error, status: status)
    }

    func issueCode(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        guard let user = form.text("user"), UsersFile.isValidName(user) else {
            return try await renderCodes(visit, error: "A code needs the name of an existing user. Nothing was issued.", status: .badRequest)
        }
        let door = form.text("door")
        if let door, !Identifier.isValid(door) {
            return try await renderCodes(
                visit, error: "Door “\(door)” is not a door id (a terminal_id: 1-64 of letters, digits, '.', '_' or '-'). Nothing was issued.",
                status: .badRequest)
        }
        guard let minutes = Int(form.text("minutes") ?? ""), (1...10_080).contains(minutes) else {
            return try await renderCodes(visit, error: "Valid for must be 1 to 10080 minutes. Nothing was issued.", status: .badRequest)
        }
        let issued: (code: String, expires: Date, notes: [ChangeNote])
        do {
            issued = try await CredentialChanges(services: services, changes: changes(visit)).issueCode(
                user: user, door: door, seconds: TimeInterval(minutes * 60))
        } catch let error as UserEditError {
            return try await renderCodes(visit, error: "\(error.description). Nothing was issued.", status: .notFound)
        }
        var data: [String: Any] = ["user": user, "code": issued.code, "expires": ConsoleTime.local(issued.expires, try await siteZone())]
        if let door { data["door"] = door }
        return ConsoleResponse.page(
            "code-issued", title: "Code issued", page: "codes", visit: visit, data: data, notice: ConsoleHandler.notice(nil, with: issued.notes))
    }

    /// An enrolment code for the user on the edit page: shown once, as a one-time code is.
    func issueEnrolmentCode(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        guard let name = form.text("name"), UsersFile.isValidName(name) else {
            return try await renderUsers(visit, query: nil, page: 1, error: "An enrolment code needs a user name.", status: .badRequest)
        }
        guard let hours = Int(form.text("hours") ?? ""), (1...168).contains(hours) else {
            return try await renderEdit(visit, name: name, error: "Valid for must be 1 to 168 hours. Nothing was issued.", status: .badRequest)
        }
        let shown: String
        let expires: Date
        do {
            (shown, expires) = try await CredentialChanges(services: services, changes: changes(visit)).issueEnrolmentCode(
                user: name, seconds: TimeInterval(hours * 3600))
        } catch let error as UserEditError {
            return try await renderUsers(visit, query: nil, page: 1, error: "\(error.description). Nothing was issued.", status: .notFound)
        }
        let data: [String: Any] = ["user": name, "code": shown, "enrolment": true, "expires": ConsoleTime.local(expires, try await siteZone())]
        return ConsoleResponse.page("code-issued", title: "Enrolment code issued", page: "users", visit: visit, data: data)
    }

    func revokeCode(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        guard let id = Int64(form.text("id") ?? "") else {
            return try await renderCodes(visit, error: "That code was used, expired or revoked already.", status: .notFound)
        }
        do {
            try await CredentialChanges(services: services, changes: changes(visit)).revokeCode(id: id)
        } catch let error as UserEditError {
            return try await renderCodes(visit, error: error.description, status: .notFound)
        }
        return ConsoleResponse.redirect("/console/codes?done=revoked")
    }
}
