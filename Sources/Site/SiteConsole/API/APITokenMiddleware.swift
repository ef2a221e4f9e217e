import Foundation
import HTTPTypes
import Hummingbird
import SiteCore

/// The token check in front of every `/api/v1/` route: `Authorization: Bearer TOKEN`, found
/// by its SHA-256 (its last use recorded), live (not revoked, not expired), within its own
/// rate (``APIRateLimits``). The route then gets an ``APIRequestContext`` with the token;
/// the permission the route names is checked before it runs (``APIRoutePermissions``).
struct APITokenMiddleware: RouterMiddleware {
    typealias Context = ConsoleRequestContext
    let tokens: any APITokenStore
    let limits: APIRateLimits
    let now: @Sendable () -> Date

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") else {
            return APIResponse.error(.unauthorized, "send the token as Authorization: Bearer TOKEN (kioskpad verifier token create)", bearer: true)
        }
        let secret = String(header.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces)
        let now = now()
        let token: APIToken?
        do {
            token = try await tokens.useToken(hash: APITokenSecret.hash(secret), now: now)
        } catch {
            return APIResponse.error(.serviceUnavailable, "the database cannot be used now")
        }
        guard let token else { return APIResponse.error(.unauthorized, "the token is not known", bearer: true) }
        if token.revoked != nil { return APIResponse.error(.unauthorized, "token \(token.name) was revoked", bearer: true) }
        guard token.isLive(at: now) else { return APIResponse.error(.unauthorized, "token \(token.name) has expired", bearer: true) }
        if let wait = limits.admit(token: token.name, now: now) {
            var response = APIResponse.error(
                .tooManyRequests, "token \(token.name) is over its rate (\(limits.perSecond) requests a second, bursts of \(limits.burst))")
            response.headers[.retryAfter] = String(wait)
            return response
        }
        var admitted = context
        admitted.apiToken = token
        return try await next(request, admitted)
    }
}

/// A request with a live token, as the `/api/v1/` routes see it.
struct APIRequestContext: ChildRequestContext {
    var coreContext: CoreRequestContextStorage
    let token: APIToken
    let source: String

    init(context: ConsoleRequestContext) throws {
        // The middleware in front of the group sets it; a route outside it has no token.
        guard let token = context.apiToken else { throw HTTPError(.unauthorized) }
        coreContext = context.coreContext
        self.token = token
        source = context.remoteAddress?.ipAddress ?? "unknown"
    }

    /// Whether the token grants `scope`.
    func has(_ scope: APIScope) -> Bool { token.grants(scope) }

    /// The 403 for a `permission` the token lacks: the permission, the scope that gives it and
    /// the token's role, and which of the two is missing.
    func refusal(_ permission: SitePermission) -> Response {
        let scope = APIScope.allCases.first { $0.permissions.contains(permission) }
        let scopes = token.scopes.sorted().map(\.rawValue).joined(separator: ",")
        let why =
            token.role.permissions.contains(permission)
            ? "token \(token.name) lacks the \(scope?.rawValue ?? "-") scope (it has \(scopes)): \(permission.rawValue) needs it"
            : "token \(token.name) is of role \(token.role.name), which may not \(permission.rawValue) (roles that may: "
                + SiteRole.having(permission).map(\.name).joined(separator: ", ") + ")"
        var extra = ["permission": permission.rawValue, "role": token.role.name]
        if let scope { extra["scope"] = scope.rawValue }
        return APIResponse.error(.forbidden, why, extra: extra)
    }
}
