import HTTPTypes
import Hummingbird

/// Answers a request under `/api/v1/` whose path the API has, with a method it does not
/// take, 405 with `Allow`, and a path it does not have 404, both in JSON (the router would
/// answer both with the console's HTML 404 page).
struct APIMethodNotAllowed<Context: RequestContext>: RouterMiddleware {
    /// Each path pattern (`*`: one segment) and the methods it takes.
    static var routes: [(pattern: [Substring], methods: [HTTPRequest.Method])] {
        [
            (["api", "v1", "token"], [.get]), (["api", "v1", "users"], [.get, .post]), (["api", "v1", "users", "*"], [.get, .patch, .delete]),
            (["api", "v1", "users", "*", "disable"], [.post]), (["api", "v1", "users", "*", "enable"], [.post]),
            (["api", "v1", "users", "*", "cards"], [.post]), (["api", "v1", "users", "*", "cards", "remove"], [.post]),
            (["api", "v1", "users", "*", "codes"], [.post]), (["api", "v1", "users", "*", "enrolment-code"], [.post]),
            (["api", "v1", "audit"], [.get]), (["api", "v1", "codes"], [.get]), (["api", "v1", "codes", "*"], [.delete]),
            (["api", "v1", "visitor-passes"], [.get, .post]), (["api", "v1", "visitor-passes", "*"], [.get, .delete]),
            (["api", "v1", "doors"], [.get]), (["api", "v1", "doors", "*", "alerts", "*", "acknowledge"], [.post]),
            (["api", "v1", "doors", "*", "rotate"], [.post]), (["api", "v1", "doors", "*", "retire"], [.post]),
            (["api", "v1", "doors", "*", "unlock"], [.post]), (["api", "v1", "doors", "*", "lock"], [.post]),
            (["api", "v1", "doors", "*", "commands"], [.get]),
            (["api", "v1", "settings"], [.get, .patch]),
            (["api", "v1", "replica-key"], [.get]), (["api", "v1", "replica-key", "rotate"], [.post]), (["api", "v1", "replica-key", "finish"], [.post]),
            (["api", "v1", "modes"], [.get]), (["api", "v1", "modes", "site"], [.put]), (["api", "v1", "modes", "doors", "*"], [.put]),
            (["api", "v1", "holidays"], [.get]), (["api", "v1", "holidays", "*"], [.put, .delete]),
            (["api", "v1", "schedules"], [.get]), (["api", "v1", "schedules", "*"], [.put, .delete]),
            (["api", "v1", "door-groups"], [.get]), (["api", "v1", "door-groups", "*"], [.put, .delete]),
            (["api", "v1", "access-levels"], [.get]), (["api", "v1", "access-levels", "*"], [.put, .delete]),
            (["api", "v1", "groups"], [.get]), (["api", "v1", "groups", "*"], [.put, .delete]),
            (["api", "v1", "doors", "*", "access"], [.get]), (["api", "v1", "users", "*", "access"], [.get]),
            (["api", "v1", "webhooks"], [.get, .post]), (["api", "v1", "webhooks", "*"], [.delete]),
            (["api", "v1", "webhooks", "*", "deliveries"], [.get]), (["api", "v1", "webhooks", "*", "deliveries", "*", "resend"], [.post]),
            (["api", "v1", "webhooks", "*", "enable"], [.post]),
        ]
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard path.hasPrefix("/api/") else { return try await next(request, context) }
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        let match = Self.routes.first { route in
            route.pattern.count == segments.count && zip(route.pattern, segments).allSatisfy { $0 == "*" || $0 == $1 }
        }
        guard let match else { return APIResponse.error(.notFound, "\(path) is not a path of the API (docs/api-openapi.yaml)") }
        guard match.methods.contains(request.method) else {
            var response = APIResponse.error(.methodNotAllowed, "\(path) takes \(match.methods.map(\.rawValue).joined(separator: ", ")) only")
            response.headers[.allow] = match.methods.map(\.rawValue).joined(separator: ", ")
            return response
        }
        return try await next(request, context)
    }
}
