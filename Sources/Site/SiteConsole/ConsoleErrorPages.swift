import Hummingbird

/// Turns the router's own errors under `/console/` (no such page 404, wrong method 405, a
/// request it could not read) into console pages, so that they carry the same security
/// headers as every other console answer.
struct ConsoleErrorPages<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError {
            let text = error.status == .notFound ? "There is no such console page." : "The console could not take this request."
            return ConsoleResponse.message(text, title: error.status.reasonPhrase, status: error.status)
        }
    }
}
