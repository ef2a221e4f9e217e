import Hummingbird

/// The login in front of every console route but the login page and the static files: the
/// routes sit in a group behind this middleware, so a new page cannot forget it. Finds the
/// administrator's session, checks a POST's form token (CSRF), and hands the route an
/// ``AdminRequestContext`` that carries the administrator and the form.
struct ConsoleSessionMiddleware: RouterMiddleware {
    typealias Context = ConsoleRequestContext
    let console: ConsoleHandler
    /// Answer a missing session with 401 (the pages' live data), not a redirect to the login.
    let json: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        await console.admit(request, context, json: json) { visit, form in
            var admitted = context
            admitted.admitted = (visit, form)
            return try await next(request, admitted)
        }
    }
}

/// A request from a logged-in administrator, as the routes behind ``ConsoleSessionMiddleware``
/// see it: their session and transport (``Visit``) and the request's form (a POST's body,
/// its token checked; a GET's query).
struct AdminRequestContext: ChildRequestContext {
    var coreContext: CoreRequestContextStorage
    let visit: Visit
    let form: FormBody

    init(context: ConsoleRequestContext) throws {
        // The middleware in front of the group sets it; a route outside it has no administrator.
        guard let (visit, form) = context.admitted else { throw HTTPError(.unauthorized) }
        coreContext = context.coreContext
        self.visit = visit
        self.form = form
    }
}
