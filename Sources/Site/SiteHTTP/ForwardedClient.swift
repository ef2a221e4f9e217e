import HTTPTypes
import Hummingbird
import KioskPadEndpoints
import NIOCore

/// The first middleware of the doors' listener: the address a request counts for in the
/// per-address limits (``VerifierRequestContext/clientAddress``). Behind a trusted proxy
/// (`server.trusted_proxies`), the right-most `X-Forwarded-For` entry that is not itself a
/// trusted proxy; from anyone else, the peer, whatever headers it sends.
struct ForwardedClient: RouterMiddleware {
    let trusted: Set<IPAddress>

    func handle(
        _ request: Request, context: VerifierRequestContext, next: (Request, VerifierRequestContext) async throws -> Response
    ) async throws -> Response {
        guard !trusted.isEmpty else { return try await next(request, context) }
        var context = context
        context.clientAddress = Self.client(peer: context.clientAddress, forwarded: request.headers[values: .xForwardedFor], trusted: trusted)
        return try await next(request, context)
    }

    /// The client `peer` speaks for: `peer` itself unless it is trusted; then each
    /// `X-Forwarded-For` entry from the right, the first that is not trusted (an entry that is
    /// no IP address ends the walk there: the peer that added it is the one counted).
    static func client(peer: String, forwarded: [String], trusted: Set<IPAddress>) -> String {
        guard let address = IPAddress(literal: peer), trusted.contains(address) else { return peer }
        var current = peer
        for entry in forwarded.flatMap({ $0.split(separator: ",") }).reversed() {
            let text = entry.trimmingCharacters(in: .whitespaces)
            guard let hop = IPAddress(literal: text) else { return current }
            current = hop.description
            if !trusted.contains(hop) { return current }
        }
        return current
    }
}

extension HTTPField.Name {
    /// `X-Forwarded-For`, as a reverse proxy sets it.
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
}
