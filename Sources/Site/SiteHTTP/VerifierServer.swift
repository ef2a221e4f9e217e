import HTTPTypes
import Hummingbird
import KioskPadAccess
import Logging
import NIOCore
import SiteCore

/// The reference verifier over HTTP (Hummingbird): `POST /verify` per docs/protocol.md and
/// docs/openapi.yaml, decided by a ``ReferenceVerifier``, `POST /v1/events` (the terminals' forwarded
/// journal records, a ``DoorEventIntake``), `POST /v1/credentials` (a door's signed
/// credential replica, a ``CredentialService``), `GET /healthz` (200, with the store's
/// reachability and connection counts), `POST /v1/enrol` (a PIN chosen at a door with an
/// enrolment code, decided by the ``ReferenceVerifier``) and `GET /metrics` (``VerifierMetrics``). Bodies over the cap and
/// bodies that are not the verification JSON get 400; nothing a client sends crashes it;
/// ``ConnectionLimits`` bound how many connections there are and how long each may take.
public enum VerifierServer {
    public static func application(
        verifier: ReferenceVerifier, events: DoorEventIntake? = nil, credentials: CredentialService? = nil, host: String, port: Int,
        limits: ConnectionLimits = ConnectionLimits(),
        metrics: VerifierMetrics = VerifierMetrics(), logger: Logger,
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router(context: VerifierRequestContext.self)
        var methods: [String: HTTPRequest.Method] = ["/verify": .post, "/v1/enrol": .post, "/healthz": .get, "/metrics": .get]
        if events != nil { methods["/v1/events"] = .post }
        if credentials != nil { methods["/v1/credentials"] = .post }
        router.add(middleware: MethodNotAllowed(methods: methods))
        let maxBody = verifier.settings.maxBodyBytes
        router.post("/verify") { request, context -> Response in
            let incoming: ReferenceVerifier.Incoming
            switch await signedRequest(request, context, maxBody: maxBody) {
            case .success(let read): incoming = read
            case .failure(let refusal): return refusal.response
            }
            let started = ContinuousClock.now
            let decision = await verifier.handle(incoming)
            metrics.record(decision, duration: ContinuousClock.now - started)
            let reply = HTTPReply(decision)
            var headers: HTTPFields = [.contentType: "application/json"]
            if reply.status == 429 { headers[.retryAfter] = String(verifier.retryAfterSeconds) }
            return Response(status: HTTPResponse.Status(code: reply.status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: reply.body)))
        }
        router.post("/v1/enrol") { request, context -> Response in
            // A PIN chosen at a door with an enrolment code (signed, as /verify; 4 KiB at most).
            let incoming: ReferenceVerifier.Incoming
            switch await signedRequest(request, context, maxBody: 4_096) {
            case .success(let read): incoming = read
            case .failure(let refusal): return refusal.response
            }
            let decision = await verifier.enrol(incoming)
            metrics.recordEndpoint("enrol", result: VerifierMetrics.result(decision))
            let reply = HTTPReply(decision)
            var headers: HTTPFields = [.contentType: "application/json"]
            if reply.status == 429 { headers[.retryAfter] = String(verifier.retryAfterSeconds) }
            return Response(status: HTTPResponse.Status(code: reply.status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: reply.body)))
        }
        if let events {
            // The terminals' forwarded journal records (`events.url`): up to 50 a batch.
            let maxEvents = DoorEventBatch.maxRecords * 8_192
            router.post("/v1/events") { request, context -> Response in
                // A door naming itself in the header and over its quota: answered before its body is read.
                if let early = events.overQuotaBeforeBody(terminal: WebhookHeader.value(WebhookHeader.terminal, in: request.headers)) {
                    metrics.recordEndpoint("events", result: "over_quota")
                    return await doorResponse(early)
                }
                return await gated("events", request, context, maxBody: maxEvents, verifier: verifier, metrics: metrics) { incoming in
                    await events.handle(incoming)
                }
            }
        }
        if let credentials {
            // A door's signed credential replica (or a confirmation of the one it holds).
            router.post("/v1/credentials") { request, context -> Response in
                await gated("credentials", request, context, maxBody: 4_096, verifier: verifier, metrics: metrics) { incoming in
                    await credentials.handle(incoming)
                }
            }
        }
        router.get("/healthz") { _, _ -> Response in
            let connections = limits.statistics
            // Always 200 (docs/openapi.yaml); the body says whether the store (the database)
            // can be used now, for a proxy's health check (HAProxy: expect string "store":"ok").
            let problem = await verifier.healthProblem()
            let store = problem.map { "\"store\":\"unavailable\",\"problem\":\(VerificationRequestBody.jsonString($0))" } ?? "\"store\":\"ok\""
            return json(
                200,
                """
                {"status":"\(problem == nil ? "ok" : "unavailable")",\(store),"connections":{"open":\(connections.open),"peak":\(connections.peak),\
                "refused":\(connections.refused),"timed_out":\(connections.timedOut)}}
                """)
        }
        router.get("/metrics") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
        }
        return Application(
            router: router,
            server: limits.server(),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "kioskpad-verifier"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) },
            logger: logger)
    }

    /// A door endpoint other than `/verify`, behind `/verify`'s per-address rejection tally:
    /// a throttled address is answered 429 with `Retry-After` before its body is read; a
    /// 400 or 401 is counted (and audited in aggregate); every answer is counted in
    /// `kioskpad_verifier_door_requests_total`.
    static func gated(
        _ endpoint: String, _ request: Request, _ context: VerifierRequestContext, maxBody: Int, verifier: ReferenceVerifier, metrics: VerifierMetrics,
        _ handle: (ReferenceVerifier.Incoming) async -> DoorRequestOutcome
    ) async -> Response {
        let source = context.remoteAddress?.ipAddress ?? "unknown"
        guard await verifier.admits(source) else {
            metrics.recordEndpoint(endpoint, result: "throttled")
            var response = json(429, "{\"error\":\"too many refused requests from this address; wait and try again\"}")
            response.headers[.retryAfter] = String(verifier.retryAfterSeconds)
            return response
        }
        switch await signedRequest(request, context, maxBody: maxBody) {
        case .failure(let refusal):
            metrics.recordEndpoint(endpoint, result: "malformed")
            await verifier.noteRefused(
                .malformed, "body missing or larger than \(maxBody) bytes", endpoint: endpoint,
                .init(
                    contentType: nil, webhookID: nil, webhookTimestamp: nil, webhookSignature: nil, body: [], source: source))
            return refusal.response
        case .success(let incoming):
            let outcome = await handle(incoming)
            metrics.recordEndpoint(endpoint, result: outcome.result)
            // A door over its event quota is its own limit, not a refusal of the address.
            if case .refused(let refusal, let reason) = outcome { await verifier.noteRefused(refusal, reason, endpoint: endpoint, incoming) }
            return await doorResponse(outcome)
        }
    }

    /// A body that could not be read (400).
    struct UnreadableBody: Error {
        let response: Response
    }

    /// The body (up to `maxBody` bytes) and the signature headers of a request.
    static func signedRequest(
        _ request: Request, _ context: VerifierRequestContext, maxBody: Int
    ) async -> Result<ReferenceVerifier.Incoming, UnreadableBody> {
        let body: [UInt8]
        do {
            var buffer = try await request.body.collect(upTo: maxBody)
            body = buffer.readBytes(length: buffer.readableBytes) ?? []
        } catch {
            return .failure(UnreadableBody(response: json(400, "{\"error\":\"body missing or larger than \(maxBody) bytes\"}")))
        }
        return .success(
            ReferenceVerifier.Incoming(
                contentType: request.headers[.contentType],
                webhookID: WebhookHeader.value(WebhookHeader.id, in: request.headers),
                webhookTimestamp: WebhookHeader.value(WebhookHeader.timestamp, in: request.headers),
                webhookSignature: WebhookHeader.value(WebhookHeader.signature, in: request.headers),
                body: body, source: context.remoteAddress?.ipAddress, terminal: WebhookHeader.value(WebhookHeader.terminal, in: request.headers)))
    }

    /// A door endpoint's outcome as an answer, with its `Retry-After`; an answer of 429 (over
    /// the door's quota) is sent after ``DoorEventIntake/overQuotaPace``.
    static func doorResponse(_ outcome: DoorRequestOutcome) async -> Response {
        let reply = HTTPReply(outcome)
        var headers: HTTPFields = [.contentType: "application/json"]
        if let seconds = outcome.retryAfter {
            try? await Task.sleep(for: DoorEventIntake.overQuotaPace)
            headers[.retryAfter] = String(seconds)
        }
        return Response(status: HTTPResponse.Status(code: reply.status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: reply.body)))
    }

    static func json(_ status: Int, _ text: String) -> Response {
        Response(
            status: HTTPResponse.Status(code: status), headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}

/// Hummingbird's request context plus the peer's address (for per-source limits).
public struct VerifierRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
