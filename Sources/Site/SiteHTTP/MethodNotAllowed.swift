import HTTPTypes
import Hummingbird
import NIOCore

/// Answers a request to one of the server's paths with a method that path does not take with
/// 405 and `Allow` (HTTP's answer, and what docs/openapi.yaml implies), where the router would
/// answer some methods (TRACE, for one) with an empty 404. Other paths go on to the router.
struct MethodNotAllowed<Context: RequestContext>: RouterMiddleware {
    /// Each path the server serves, and its one method.
    let methods: [String: HTTPRequest.Method]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let allowed = methods[request.uri.path], request.method != allowed else {
            return try await next(request, context)
        }
        return Response(
            status: .methodNotAllowed, headers: [.contentType: "application/json", .allow: allowed.rawValue],
            body: ResponseBody(byteBuffer: ByteBuffer(string: "{\"error\":\"\(request.uri.path) takes \(allowed.rawValue) only\"}")))
    }
}
