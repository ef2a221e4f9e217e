import HTTPTypes
import Hummingbird
import KeypadVerifier
import Logging
import NIOCore
import ReferenceVerifierCore

/// The reference verifier over HTTP (Hummingbird): `POST /verify` per CONTRACTS sections
/// 2-3, decided by a ``ReferenceVerifier``, `GET /healthz` (200, with the store's
/// reachability and connection counts) and `GET /metrics` (``VerifierMetrics``). Bodies over the cap and
/// bodies that are not the verification JSON get 400; nothing a client sends crashes it;
/// ``ConnectionLimits`` bound how many connections there are and how long each may take.
public enum VerifierServer {
    public static func application(
        verifier: ReferenceVerifier, host: String, port: Int, limits: ConnectionLimits = ConnectionLimits(),
        metrics: VerifierMetrics = VerifierMetrics(), logger: Logger,
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router(context: VerifierRequestContext.self)
        let maxBody = verifier.settings.maxBodyBytes
        router.post("/verify") { request, context -> Response in
            let body: [UInt8]
            do {
                var buffer = try await request.body.collect(upTo: maxBody)
                body = buffer.readBytes(length: buffer.readableBytes) ?? []
            } catch {
                return json(400, "{\"error\":\"body missing or larger than \(maxBody) bytes\"}")
            }
            let started = ContinuousClock.now
            let decision = await verifier.handle(ReferenceVerifier.Incoming(
                contentType: request.headers[.contentType],
                webhookID: WebhookHeader.value(WebhookHeader.id, in: request.headers),
                webhookTimestamp: WebhookHeader.value(WebhookHeader.timestamp, in: request.headers),
                webhookSignature: WebhookHeader.value(WebhookHeader.signature, in: request.headers),
                body: body, source: context.remoteAddress?.ipAddress))
            metrics.record(decision, duration: ContinuousClock.now - started)
            let reply = HTTPReply(decision)
            return Response(
                status: HTTPResponse.Status(code: reply.status),
                headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: reply.body)))
        }
        router.get("/healthz") { _, _ -> Response in
            let connections = limits.statistics
            // Always 200 (CONTRACTS section 3); the body says whether the store (the database)
            // can be used now, for a proxy's health check (HAProxy: expect string "store":"ok").
            let problem = await verifier.healthProblem()
            let store = problem.map { "\"store\":\"unavailable\",\"problem\":\(VerificationRequestBody.jsonString($0))" } ?? "\"store\":\"ok\""
            return json(200, """
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
