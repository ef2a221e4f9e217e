import HTTPTypes
import Hummingbird
import SiteCore

/// Every `/api/v1/` route names the permission it needs (``SitePermission``) where it is
/// added: a token whose role and scopes do not give it gets 403 naming the permission, before
/// the body is read (``APIRequestContext/refusal(_:)``).
enum APIRoutePermissions {
    static func guarded(
        _ needed: Set<SitePermission>, _ handler: @escaping @Sendable (Request, APIRequestContext) async throws -> Response
    ) -> @Sendable (Request, APIRequestContext) async throws -> Response {
        { request, context in
            guard needed.isDisjoint(with: context.token.permissions) else { return try await handler(request, context) }
            return context.refusal(needed.sorted()[0])
        }
    }
}

extension RouterGroup where Context == APIRequestContext {
    /// A route of `method` for a token with `permission` (or `other`).
    @discardableResult
    func on(
        _ path: RouterPath, _ method: HTTPRequest.Method, needs permission: SitePermission, or other: SitePermission? = nil,
        use handler: @escaping @Sendable (Request, Context) async throws -> Response
    ) -> Self {
        on(path, method: method, use: APIRoutePermissions.guarded(Set(permission, or: other), handler))
    }
}
