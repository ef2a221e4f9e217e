import Foundation
import HTTPTypes
import Hummingbird
import KioskPadAccess
import KioskPadEndpoints
import Logging
import NIOCore
import SiteCore

/// The reference verifier over HTTP (Hummingbird): `POST /verify` per docs/protocol.md and
/// docs/openapi.yaml, decided by a ``ReferenceVerifier``, `POST /v1/events` (the terminals' forwarded
/// journal records, a ``DoorEventIntake``), `POST /v1/credentials` (a door's signed
/// credential replica, a ``CredentialService``), `GET /healthz` (200, with the store's
/// reachability and connection counts), `POST /v1/enrol` (a PIN chosen at a door with an
/// enrolment code, decided by the ``ReferenceVerifier``), `POST /v1/check-in` (an adopted door's
/// ``DoorCheckIn``), `POST /v1/watch` (the doors' push channel, a ``DoorWatch``) and `GET
/// /metrics` (``VerifierMetrics``). Bodies over the cap and
/// bodies that are not the verification JSON get 400; nothing a client sends crashes it;
/// ``ConnectionLimits`` bound how many connections there are and how long each may take.
public enum VerifierServer {
    public static func application(
        verifier: ReferenceVerifier, events: DoorEventIntake? = nil, credentials: CredentialService? = nil,
        pairing: (store: any DoorPairingStore, doorSecrets: any VerifierStore)? = nil, checkIn: DoorCheckIn? = nil, watch: DoorWatch? = nil,
        host: String, port: Int,
        limits: ConnectionLimits = ConnectionLimits(), trustedProxies: [IPAddress] = [],
        metrics: VerifierMetrics = VerifierMetrics(), logger: Logger,
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router(context: VerifierRequestContext.self)
        router.add(middleware: ForwardedClient(trusted: Set(trustedProxies)))
        var methods: [String: HTTPRequest.Method] = ["/verify": .post, "/v1/enrol": .post, "/healthz": .get, "/metrics": .get]
        if events != nil { methods["/v1/events"] = .post }
        if credentials != nil { methods["/v1/credentials"] = .post }
        if pairing != nil { methods["/v1/pair"] = .post }
        if checkIn != nil { methods["/v1/check-in"] = .post }
        if watch != nil { methods["/v1/watch"] = .post }
        router.add(middleware: MethodNotAllowed(methods: methods))
        var doors = [
            DoorRoute(
                path: "/verify", name: "verify", maxBody: verifier.settings.maxBodyBytes, endpoint: AttemptEndpoint(verifier), counting: .decisions,
                notesRefusals: false),
            // A PIN chosen at a door with an enrolment code (signed, as /verify; 4 KiB at most).
            DoorRoute(path: "/v1/enrol", name: "enrol", maxBody: 4_096, endpoint: EnrolmentEndpoint(verifier), counting: .endpoint, notesRefusals: false),
        ]
        if let events {
            // The terminals' forwarded journal records (`events.url`): up to 50 a batch. A door
            // naming itself in the header and over its quota is answered before its body is read.
            var route = DoorRoute(
                path: "/v1/events", name: "events", maxBody: DoorEventBatch.maxRecords * 8_192, endpoint: events, counting: .endpoint,
                notesRefusals: true)
            route.beforeBody = { headers in
                events.overQuotaBeforeBody(terminal: WebhookHeader.value(WebhookHeader.terminal, in: headers)).map(DoorAnswer.outcome)
            }
            doors.append(route)
        }
        if let credentials {
            // A door's signed credential replica (or a confirmation of the one it holds).
            doors.append(
                DoorRoute(path: "/v1/credentials", name: "credentials", maxBody: 4_096, endpoint: credentials, counting: .endpoint, notesRefusals: true))
        }
        if let checkIn {
            // An adopted door checking in: its settings report, a rotation of its secret (signed with its own; 8 KiB at most).
            doors.append(DoorRoute(path: "/v1/check-in", name: "check_in", maxBody: 8_192, endpoint: checkIn, counting: .endpoint, notesRefusals: true))
        }
        if let watch {
            // The doors' push channel: held until the replica's version passes the door's (1 KiB at most).
            doors.append(DoorRoute(path: "/v1/watch", name: "watch", maxBody: 1_024, endpoint: watch, counting: .endpoint, notesRefusals: true))
        }
        DoorController(doors, verifier: verifier, metrics: metrics).add(to: router)
        if let pairing {
            // Doors adopted from the site: announce, poll, result (unsigned but for `opened`).
            PairingRoutes(pairing: pairing.store, doorSecrets: pairing.doorSecrets, now: { Date() }).add(to: router)
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

/// Hummingbird's request context plus the peer's address (for per-source limits) and, on
/// a door route, what the door middleware learned of the request.
public struct VerifierRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?
    /// The address the per-address limits count: the peer's, or behind a trusted proxy the
    /// client it forwarded for (``ForwardedClient``).
    public var clientAddress: String
    /// What the door middleware learned of a door request (unused on other routes).
    var door = DoorRequestState()

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        clientAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }
}
