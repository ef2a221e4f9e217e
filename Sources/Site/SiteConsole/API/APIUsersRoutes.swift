import Foundation
import Hummingbird
import KioskPadAccess
import SiteCore

/// `GET /api/v1/users` (paged by name, searched) and `GET /api/v1/users/{name}`: who is on
/// the site, what credentials they have (never a hash) and their access rule.
struct APIUsersRoutes: Sendable {
    let services: ConsoleServices
    static let defaultLimit = 100
    static let maxLimit = 500

    func list(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        var limit = Self.defaultLimit
        if let text = query["limit"].map(String.init) {
            guard let number = Int(text), (1...Self.maxLimit).contains(number) else {
                return APIResponse.error(.badRequest, "limit must be a whole number from 1 to \(Self.maxLimit)")
            }
            limit = number
        }
        let after = query["after"].map(String.init)
        let search = query["q"].map(String.init)
        let site = try await services.administration.siteRules()
        var users = try await services.administration.list().sorted { $0.name < $1.name }
        if let search, !search.isEmpty { users = users.filter { $0.name.localizedCaseInsensitiveContains(search) } }
        if let after { users = users.filter { $0.name > after } }
        let page = users.prefix(limit)
        var body: [String: Any] = ["users": page.map { Self.json($0, rule: site.rules[$0.name] ?? AccessRule()) }]
        body["next"] = users.count > limit ? (page.last?.name as Any) : NSNull()
        return APIResponse.json(body)
    }

    func read(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let name = context.parameters.get("name") ?? ""
        guard let user = try await services.administration.list().first(where: { $0.name == name }) else {
            return APIResponse.error(.notFound, "there is no user \(name)")
        }
        return APIResponse.json(Self.json(user, rule: try await services.administration.siteRules().rules[name] ?? AccessRule()))
    }

    /// A user as the API shows them: credentials by kind and count, and their rule.
    static func json(_ user: UserSummary, rule: AccessRule) -> [String: Any] {
        [
            "name": user.name, "enabled": !rule.disabled, "pin": user.hasPIN, "duress_pin": user.hasDuressPIN, "totp": user.hasTOTP,
            "cards": user.cards, "doors": rule.doors.map { $0 as Any } ?? NSNull(), "schedule": rule.schedule.map { $0 as Any } ?? NSNull(),
            "valid_from": rule.validFrom.map { $0.description as Any } ?? NSNull(), "valid_until": rule.validUntil.map { $0.description as Any } ?? NSNull(),
            "staff": rule.staff, "responder": rule.responder,
        ]
    }
}

/// `POST /api/v1/users/{name}/disable` and `.../enable`, `DELETE /api/v1/users/{name}`
/// (scope `users`): the console's changes, made by the same core functions and audited the
/// same way, with the token as the administrator (`admin: token:NAME`, `source`: the client).
struct APIUserChanges: Sendable {
    let services: ConsoleServices

    func setState(disabled: Bool) -> @Sendable (Request, APIRequestContext) async throws -> Response {
        { _, context in
            if let refused = context.require(.users) { return refused }
            let name = context.parameters.get("name") ?? ""
            do {
                try await changes(context).apply(disabled ? .userDisable : .userEnable, [("user", name)]) {
                    _ = try await services.administration.setAccess(user: name) { $0.disabled = disabled }
                }
            } catch let error as UserEditError {
                return APIResponse.error(.notFound, error.description)
            }
            return APIResponse.json(["name": name, "enabled": !disabled])
        }
    }

    func remove(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        if let refused = context.require(.users) { return refused }
        let name = context.parameters.get("name") ?? ""
        do {
            try await changes(context).apply(.userRemove, [("user", name)]) {
                _ = try await services.administration.remove(name: name)
            }
        } catch let error as UserEditError {
            return APIResponse.error(.notFound, error.description)
        }
        return APIResponse.json(["name": name, "removed": true])
    }

    /// Changes made with this request's token, as the audit names it.
    func changes(_ context: APIRequestContext) -> AdministratorChanges {
        AdministratorChanges(store: services.store, by: Administrator(name: "token:" + context.token.name, source: context.source), now: services.now)
    }
}
