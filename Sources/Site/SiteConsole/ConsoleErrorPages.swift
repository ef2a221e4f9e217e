import Hummingbird
import SiteCore

/// Turns the router's own errors under `/console/` (no such page 404, wrong method 405, a
/// request it could not read) into console pages, so that they carry the same security
/// headers as every other console answer. A change the application layer refused for the
/// actor's role (``NotPermitted``: a route let them in but a command's own check did not) is
/// 403, as a page or, under `/api/`, the API's JSON error.
struct ConsoleErrorPages<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let refusal as NotPermitted {
            if request.uri.path.hasPrefix("/api/") {
                return APIResponse.error(.forbidden, refusal.description, extra: ["permission": refusal.permission.rawValue, "role": refusal.role.name])
            }
            return ConsoleResponse.message(refusal.description, title: "Not permitted", status: .forbidden)
        } catch let error as any HTTPResponseError {
            let text = error.status == .notFound ? "There is no such console page." : "The console could not take this request."
            return ConsoleResponse.message(text, title: error.status.reasonPhrase, status: error.status)
        }
    }
}
