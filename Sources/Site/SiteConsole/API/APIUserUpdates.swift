import Foundation
import Hummingbird
import KioskPadAccess
import KioskPadCore
import KioskPadStorage
import SiteCore

/// `PATCH /api/v1/users/{name}` (scope users): the fields sent change, the rest stay (`name`
/// renames the user, who keeps their credentials, rule and codes); `null` clears one (`doors: null`: every door; `schedule: null`: always; a date: no limit). Then
/// cards (`POST .../cards`, `POST .../cards/remove`, the number in the body, never in a URL)
/// and codes (scope codes): a one-time code or an enrolment code issued, shown once in the
/// answer; unused codes listed; one revoked. Each change is the console's, made by the same
/// function and audited under the token.
struct APIUserUpdates: Sendable {
    let changes: APIUserChanges
    var services: ConsoleServices { changes.services }
    static let ruleKeys: Set<String> = ["doors", "schedule", "levels", "groups", "valid_from", "valid_until", "staff", "responder", "enabled"]

    func update(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let name = context.parameters.get("name") ?? ""
        if let missing = try await missing(name) { return missing }
        let fields: StrictJSON.Fields
        switch try await APIBody.object(request, allowed: Self.ruleKeys.union(["name"]), nullable: ["doors", "schedule", "valid_from", "valid_until"]) {
        case .failure(let refusal): return refusal.response
        case .success(let object): fields = object
        }
        var newName: String?
        if fields.has("name") {
            guard let text = fields.string("name"), UsersFile.isValidName(text) else {
                return APIResponse.error(.badRequest, "name must be 1-64 of letters, digits, '.', '_' or '-'")
            }
            if text != name {
                guard try await services.administration.userListing(name: text) == nil else {
                    return APIResponse.error(.conflict, "name: there is a user \(text) already")
                }
                newName = text
            }
        }
        var enabledFlag: Bool?
        if fields.has("enabled") {
            guard let flag = fields.bool("enabled") else { return APIResponse.error(.badRequest, "enabled must be true or false") }
            enabledFlag = flag
        }
        let enabled = enabledFlag
        let given: AccessRule
        do {
            given = try AccessRule(fields: try APIUserCreation.ruleFields(fields))
        } catch let error as AccessRule.RuleError {
            return APIResponse.error(.badRequest, error.description)
        } catch let problem as APIUserCreation.FieldProblem {
            return APIResponse.error(.badRequest, problem.description)
        }
        let sent = Set(fields.object.keys).subtracting(["name"])
        let notes: [ChangeNote]
        do {
            let patch = sent.isEmpty ? nil : Self.patch(sent: sent, given: given, enabled: enabled)
            notes = try await changes.users(context).update(name, rule: patch, renameTo: newName)
        } catch let error as UserEditError {
            return APIResponse.error(.conflict, error.description)
        }
        guard let listing = try await services.administration.userListing(name: newName ?? name) else {
            return APIResponse.error(.notFound, "there is no user \(newName ?? name)")
        }
        return APIResponse.json(APIUsersRoutes.json(listing.user, rule: listing.rule, notes: notes))
    }

    /// The parts of the rule that were `sent`, as `given`, and the enabled state.
    static func patch(sent: Set<String>, given: AccessRule, enabled: Bool?) -> AccessRulePatch {
        AccessRulePatch(
            doors: sent.contains("doors") ? .some(given.doors) : nil, schedule: sent.contains("schedule") ? .some(given.schedule) : nil,
            levels: sent.contains("levels") ? given.levels : nil, groups: sent.contains("groups") ? given.groups : nil,
            validFrom: sent.contains("valid_from") ? .some(given.validFrom) : nil, validUntil: sent.contains("valid_until") ? .some(given.validUntil) : nil,
            responder: sent.contains("responder") ? given.responder : nil, staff: sent.contains("staff") ? given.staff : nil, disabled: enabled.map { !$0 })
    }

    /// `POST .../cards` (add) and `POST .../cards/remove`: `{"number": "12345678"}`.
    func card(add: Bool) -> @Sendable (Request, APIRequestContext) async throws -> Response {
        { request, context in
            let name = context.parameters.get("name") ?? ""
            let fields: StrictJSON.Fields
            switch try await APIBody.object(request, allowed: ["number"]) {
            case .failure(let refusal): return refusal.response
            case .success(let object): fields = object
            }
            if let missing = try await missing(name) { return missing }
            let range = EntryOptions.lengthRange
            guard let bytes = fields.bytes("number"), let card = SecretDigits(asciiBytes: bytes), range.contains(card.count) else {
                return APIResponse.error(.badRequest, "number must be a string of \(range.lowerBound) to \(range.upperBound) digits (the card's number)")
            }
            do {
                try await CredentialChanges(services: services, changes: changes.changes(context)).card(add, name: name, card: card)
            } catch let error as UserEditError {
                return APIResponse.error(add ? .conflict : .notFound, error.description)
            }
            let cards = try await services.administration.userListing(name: name)?.user.cards ?? 0
            return APIResponse.json(["name": name, "cards": cards], status: add ? .created : .ok)
        }
    }

    /// The 404 for a user the site does not have (a card is never added to a new name: that
    /// would make a user), or nil.
    /// A 403 when a token without the users scope asks a code for a responder or staff member.
    func beyondScope(_ name: String, _ context: APIRequestContext) async throws -> Response? {
        guard !context.has(.users), let problem = TokenAuthority.codeProblem(user: name, site: try await services.administration.siteRules()) else {
            return nil
        }
        return APIResponse.error(.forbidden, problem, extra: ["scope": APIScope.users.rawValue])
    }

    func missing(_ name: String) async throws -> Response? {
        guard UsersFile.isValidName(name), try await services.administration.userListing(name: name) != nil else {
            return APIResponse.error(.notFound, "there is no user \(name.prefix(64))")
        }
        return nil
    }

    /// `POST .../codes`: `{"minutes": 1-10080, "door": "front"}` (door left out: any door the
    /// user may open); the code in the answer, once.
    func issueCode(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let name = context.parameters.get("name") ?? ""
        if let missing = try await missing(name) { return missing }
        if let beyond = try await beyondScope(name, context) { return beyond }
        let fields: StrictJSON.Fields
        switch try await APIBody.object(request, allowed: ["minutes", "door"]) {
        case .failure(let refusal): return refusal.response
        case .success(let object): fields = object
        }
        guard let minutes = fields.integer("minutes"), (1...10_080).contains(minutes) else {
            return APIResponse.error(.badRequest, "minutes must be a whole number from 1 to 10080 (7 days)")
        }
        var door: String?
        if fields.has("door") {
            guard let text = fields.string("door"), Identifier.isValid(text) else {
                return APIResponse.error(.badRequest, "door must be a door id (a terminal_id: 1-64 of letters, digits, '.', '_' or '-')")
            }
            door = text
        }
        do {
            let issued = try await CredentialChanges(services: services, changes: changes.changes(context)).issueCode(
                user: name, door: door, seconds: TimeInterval(minutes * 60))
            return APIResponse.json(
                APIResponse.noting(
                    issued.notes,
                    ["user": name, "code": issued.code, "door": door.map { $0 as Any } ?? NSNull(), "expires": UTCTimestamp.rfc3339(issued.expires)]),
                status: .created)
        } catch let error as UserEditError {
            return APIResponse.error(.notFound, error.description)
        }
    }

    /// `POST .../enrolment-code`: `{"hours": 1-168}`; the user types it at a door with
    /// enrolment on, then chooses their PIN. The code in the answer, once.
    func issueEnrolmentCode(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let name = context.parameters.get("name") ?? ""
        if let missing = try await missing(name) { return missing }
        if let beyond = try await beyondScope(name, context) { return beyond }
        let fields: StrictJSON.Fields
        switch try await APIBody.object(request, allowed: ["hours"]) {
        case .failure(let refusal): return refusal.response
        case .success(let object): fields = object
        }
        guard let hours = fields.integer("hours"), (1...168).contains(hours) else {
            return APIResponse.error(.badRequest, "hours must be a whole number from 1 to 168 (7 days)")
        }
        do {
            let issued = try await CredentialChanges(services: services, changes: changes.changes(context)).issueEnrolmentCode(
                user: name, seconds: TimeInterval(hours * 3600))
            return APIResponse.json(["user": name, "code": issued.code, "expires": UTCTimestamp.rfc3339(issued.expires)], status: .created)
        } catch let error as UserEditError {
            return APIResponse.error(.notFound, error.description)
        }
    }

    /// `GET /api/v1/codes`: the unused codes (never a code), soonest to expire first.
    func listCodes(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let codes = try await services.console.unusedCodes(now: services.now()).map { code -> [String: Any] in
            [
                "id": code.id, "user": code.user, "door": code.door.map { $0 as Any } ?? NSNull(), "purpose": code.enrolment ? "enrolment" : "entry",
                "expires": UTCTimestamp.rfc3339(code.expires),
            ]
        }
        return APIResponse.json(["codes": codes])
    }

    /// `DELETE /api/v1/codes/{id}`.
    func revokeCode(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        guard let id = context.parameters.get("id").flatMap({ Int64($0) }) else {
            return APIResponse.error(.notFound, "there is no unused code \(context.parameters.get("id") ?? "")")
        }
        do {
            try await CredentialChanges(services: services, changes: changes.changes(context)).revokeCode(id: id)
        } catch let error as UserEditError {
            return APIResponse.error(.notFound, error.description)
        }
        return APIResponse.json(["id": id, "revoked": true])
    }
}
