import HTTPTypes
import Hummingbird
import KioskPadAccess
import NIOCore
import SiteCore

/// The first step of every door request: finds its route, answers a door over its event
/// quota, and answers 429 with `Retry-After` to an address over its rejection limit (the
/// tally `/verify`, `/v1/enrol`, `/v1/events` and `/v1/credentials` share), all before the
/// body is read.
struct DoorRateGate: RouterMiddleware {
    let controller: DoorController

    func handle(
        _ request: Request, context: VerifierRequestContext, next: (Request, VerifierRequestContext) async throws -> Response
    ) async throws -> Response {
        guard let route = controller.routes[request.uri.path] else { return try await next(request, context) }
        var context = context
        context.door.route = route
        if let early = route.beforeBody(request.headers) { return await controller.respond(early, route: route, incoming: nil) }
        guard await controller.verifier.admits(context.clientAddress) else {
            return await controller.respond(.decision(.throttled), route: route, incoming: nil)
        }
        return try await next(request, context)
    }
}

/// Reads the body, up to the route's cap, with the signature headers and the peer's address
/// (a ``ReferenceVerifier/Incoming``); a body missing or over the cap is refused (400).
struct DoorBodyReader: RouterMiddleware {
    let controller: DoorController

    func handle(
        _ request: Request, context: VerifierRequestContext, next: (Request, VerifierRequestContext) async throws -> Response
    ) async throws -> Response {
        guard let route = context.door.route else { return try await next(request, context) }
        var context = context
        let source = context.clientAddress
        // Refused before any body is kept: counted against the address, answered 400.
        let malformed = { (reason: String) async -> Response in
            let empty = ReferenceVerifier.Incoming(
                contentType: nil, webhookID: nil, webhookTimestamp: nil, webhookSignature: nil, body: [], source: source)
            await controller.verifier.noteRefused(.malformed, reason, endpoint: route.name, empty)
            return await controller.respond(.decision(.refused(.malformed, reason: reason)), route: route, incoming: nil)
        }
        let wait = WebhookHeader.value(WebhookHeader.wait, in: request.headers)
        if let wait, AnswerWait.milliseconds(wait) == nil { return await malformed(AnswerWait.shape) }
        do {
            var buffer = try await request.body.collect(upTo: route.maxBody)
            context.door.incoming = ReferenceVerifier.Incoming(
                contentType: request.headers[.contentType],
                webhookID: WebhookHeader.value(WebhookHeader.id, in: request.headers),
                webhookTimestamp: WebhookHeader.value(WebhookHeader.timestamp, in: request.headers),
                webhookSignature: WebhookHeader.value(WebhookHeader.signature, in: request.headers),
                body: buffer.readBytes(length: buffer.readableBytes) ?? [], source: source,
                terminal: WebhookHeader.value(WebhookHeader.terminal, in: request.headers),
                waitMilliseconds: wait.flatMap(AnswerWait.milliseconds))
        } catch {
            return await malformed("body missing or larger than \(route.maxBody) bytes")
        }
        return try await next(request, context)
    }
}

/// The gate the route's endpoint keeps (content type, the claimed door, its signature, the
/// `webhook-id`): a refusal is answered here; an admitted request goes on to the route with
/// its body read once.
struct DoorAdmission: RouterMiddleware {
    let controller: DoorController

    func handle(
        _ request: Request, context: VerifierRequestContext, next: (Request, VerifierRequestContext) async throws -> Response
    ) async throws -> Response {
        guard let route = context.door.route, let incoming = context.door.incoming else { return try await next(request, context) }
        var context = context
        context.door.started = .now
        switch await route.endpoint.admit(incoming) {
        case .failure(let refusal):
            return await controller.respond(refusal.answer, route: route, incoming: incoming, started: context.door.started)
        case .success(let admitted):
            context.door.admitted = admitted
            return try await next(request, context)
        }
    }
}
