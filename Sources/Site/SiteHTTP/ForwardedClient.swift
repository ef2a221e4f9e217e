import HTTPTypes
import Hummingbird
import KioskPadEndpoints
import NIOCore
import SiteCore

/// The first middleware of the doors' listener: the address a request counts for in the
/// per-address limits (``VerifierRequestContext/clientAddress``). Behind a trusted proxy
/// (`server.trusted_proxies`), the right-most `X-Forwarded-For` entry that is not itself a
/// trusted proxy; from anyone else, the peer, whatever headers it sends (``ForwardedFor``).
struct ForwardedClient: RouterMiddleware {
    let trusted: Set<IPAddress>

    func handle(
        _ request: Request, context: VerifierRequestContext, next: (Request, VerifierRequestContext) async throws -> Response
    ) async throws -> Response {
        guard !trusted.isEmpty else { return try await next(request, context) }
        var context = context
        context.clientAddress = ForwardedFor.client(peer: context.clientAddress, forwarded: request.headers[values: .xForwardedFor], trusted: trusted)
        return try await next(request, context)
    }
}

extension HTTPField.Name {
    /// `X-Forwarded-For`, as a reverse proxy sets it.
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
}
