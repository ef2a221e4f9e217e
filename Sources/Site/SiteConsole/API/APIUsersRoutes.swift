import Foundation
import Hummingbird
import KioskPadAccess
import SiteCore

/// `GET /api/v1/users` (paged by name in byte order, one indexed read a page; searched) and `GET /api/v1/users/{name}`: who is on
/// the site, what credentials they have (never a hash) and their access rule.
struct APIUsersRoutes: Sendable {
    let services: ConsoleServices
    static let defaultLimit = 100
    static let maxLimit = 500

    func list(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        let limit: Int
        switch APIPageLimit.read(request, fallback: Self.defaultLimit, max: Self.maxLimit) {
        case .failure(let refusal): return refusal.response
        case .success(let number): limit = number
        }
        let after = query["after"].map(String.init)
        let search = query["q"].map(String.init)
        let users = try await services.administration.usersPage(after: after, search: search, limit: limit + 1)
        let page = users.prefix(limit)
        var body: [String: Any] = ["users": page.map { Self.json($0.user, rule: $0.rule) }]
        body["next"] = users.count > limit ? (page.last?.user.name as Any) : NSNull()
        return APIResponse.json(body)
    }

    func read(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let name = context.parameters.get("name") ?? ""
        guard let listing = try await services.administration.userListing(name: name) else {
            return APIResponse.error(.notFound, "there is no user \(name)")
        }
        return APIResponse.json(Self.json(listing.user, rule: listing.rule))
    }

    /// A user as the API shows them: credentials by kind and count, and their rule; `notes`
    /// (``ChangeNote``) in the answer to a change that has any.
    static func json(_ user: UserSummary, rule: AccessRule, notes: [ChangeNote] = []) -> [String: Any] {
        APIResponse.noting(
            notes,
            [
                "name": user.name, "enabled": !rule.disabled, "pin": user.hasPIN, "duress_pin": user.hasDuressPIN, "totp": user.hasTOTP,
                "cards": user.cards, "doors": rule.doors.map { $0 as Any } ?? NSNull(), "schedule": rule.schedule.map { $0 as Any } ?? NSNull(),
                "valid_from": rule.validFrom.map { $0.description as Any } ?? NSNull(),
                "valid_until": rule.validUntil.map { $0.description as Any } ?? NSNull(),
                "staff": rule.staff, "responder": rule.responder, "levels": rule.levels, "groups": rule.groups,
            ])
    }
}

/// `POST /api/v1/users/{name}/disable` and `.../enable`, `DELETE /api/v1/users/{name}`
/// (scope `users`): the console's changes, made by the same core functions and audited the
/// same way, with the token as the administrator (`admin: token:NAME`, `source`: the client).
struct APIUserChanges: Sendable {
    let services: ConsoleServices

    func setState(disabled: Bool) -> @Sendable (Request, APIRequestContext) async throws -> Response {
        { _, context in
            let name = context.parameters.get("name") ?? ""
            do {
                try await users(context).setDisabled(name, disabled)
            } catch let error as UserEditError {
                return APIResponse.error(.notFound, error.description)
            }
            return APIResponse.json(["name": name, "enabled": !disabled])
        }
    }

    func remove(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let name = context.parameters.get("name") ?? ""
        do {
            _ = try await users(context).remove(name)
        } catch let error as UserEditError {
            return APIResponse.error(.notFound, error.description)
        }
        return APIResponse.json(["name": name, "removed": true])
    }

    /// The users' changes made with this request's token (``UsersEditing``).
    func users(_ context: APIRequestContext) -> UsersEditing {
        UsersEditing(administration: services.administration, replica: services.replica, lookupKey: services.lookupKey, changes: changes(context))
    }

    /// Changes made with this request's token, as the audit names it.
    func changes(_ context: APIRequestContext) -> AdministratorChanges {
        AdministratorChanges(store: services.store, by: context.token.actor(from: context.source), now: services.now)
    }
}

/// `POST /api/v1/users` (scope `users`): a user with a PIN given only as its hash (a PHC
/// string, `$pbkdf2-sha256$i=...`, the part after the colon of what `kioskpad pin hash NAME` prints), never in clear, and their
/// access rule. Read in one strict pass; an error names the field. Without the PIN itself
/// the line gets no lookup or replica tag, so on a site with a lookup key it is hashed on
/// every attempt until the user chooses a PIN at a door or one is set in the console.
struct APIUserCreation: Sendable {
    let changes: APIUserChanges
    /// A body field of the wrong type or shape: what it must be.
    struct FieldProblem: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static let fields: Set<String> = ["name", "pin_hash", "doors", "schedule", "levels", "groups", "valid_from", "valid_until", "staff", "responder"]

    func create(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let fields: StrictJSON.Fields
        switch try await APIBody.object(request, allowed: Self.fields) {
        case .failure(let refusal): return refusal.response
        case .success(let object): fields = object
        }
        guard let name = fields.string("name"), UsersFile.isValidName(name) else {
            return APIResponse.error(.badRequest, "name must be 1-64 of letters, digits, '.', '_' or '-'")
        }
        guard let hashText = fields.string("pin_hash"), let hash = try? PINHash(parsing: hashText) else {
            return APIResponse.error(
                .badRequest,
                "pin_hash must be a PHC string such as $pbkdf2-sha256$i=75000$SALT$HASH (what follows NAME: in the output of kioskpad pin hash NAME); a PIN is never sent in clear"
            )
        }
        let rule: AccessRule
        do {
            rule = try AccessRule(fields: try Self.ruleFields(fields))
        } catch let error as AccessRule.RuleError {
            return APIResponse.error(.badRequest, error.description)
        } catch let problem as FieldProblem {
            return APIResponse.error(.badRequest, problem.description)
        }
        let notes: [ChangeNote]
        do {
            notes = try await changes.users(context).add(AddUser(name: name, pin: .hash(hash), rule: rule))
        } catch let error as UserEditError {
            return APIResponse.error(.conflict, error.description)
        }
        guard let listing = try await changes.services.administration.userListing(name: name) else {
            return APIResponse.error(.serviceUnavailable, "the user was added but cannot be read back now")
        }
        return APIResponse.json(APIUsersRoutes.json(listing.user, rule: listing.rule, notes: notes), status: .created)
    }

    /// The rule's words (`doors=a,b`, `schedule=x`, ...) from the body's typed fields; a field
    /// that is `null` gives none (every door, always, no date limit).
    static func ruleFields(_ fields: StrictJSON.Fields) throws -> [Substring] {
        var words: [Substring] = []
        let given = { (key: String) in fields.has(key) && fields.object[key] != .null }
        if given("doors") {
            guard case .array(let items)? = fields.object["doors"], !items.isEmpty else {
                throw FieldProblem("doors must be a list of door names (leave it out for every door)")
            }
            let doors = items.compactMap(\.text)
            guard doors.count == items.count else { throw FieldProblem("doors must be a list of door names") }
            words.append(Substring("doors=" + doors.joined(separator: ",")))
        }
        for key in ["levels", "groups"] where given(key) {
            words.append(Substring("\(key)=" + (try names(fields, key)).joined(separator: ",")))
        }
        for key in ["schedule", "valid_from", "valid_until"] where given(key) {
            guard let text = fields.string(key) else { throw FieldProblem("\(key) must be a string") }
            words.append(Substring("\(key)=\(text)"))
        }
        for key in ["staff", "responder"] where given(key) {
            guard let flag = fields.bool(key) else { throw FieldProblem("\(key) must be true or false") }
            if flag { words.append(Substring(key)) }
        }
        return words
    }

    /// The list of strings under `key` (empty allowed: none).
    static func names(_ fields: StrictJSON.Fields, _ key: String) throws -> [String] {
        guard case .array(let items)? = fields.object[key] else { throw FieldProblem("\(key) must be a list of names") }
        let names = items.compactMap(\.text)
        guard names.count == items.count else { throw FieldProblem("\(key) must be a list of names (strings)") }
        return names
    }
}
