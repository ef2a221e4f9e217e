import HTTPTypes
import Hummingbird
import KioskPadAccess
import NIOCore
import SiteCore

/// The door endpoints (`/verify`, `/v1/enrol`, `/v1/events`, `/v1/credentials`) as one
/// controller: its routes sit in one group behind ``DoorRateGate``, ``DoorBodyReader`` and
/// ``DoorAdmission``, which fill the request context's ``DoorRequestState``; the route then
/// only asks its endpoint to decide. Every answer is counted and sent here.
struct DoorController: Sendable {
    let routes: [String: DoorRoute]
    let verifier: ReferenceVerifier
    let metrics: VerifierMetrics

    init(_ routes: [DoorRoute], verifier: ReferenceVerifier, metrics: VerifierMetrics) {
        self.routes = Dictionary(uniqueKeysWithValues: routes.map { ($0.path, $0) })
        self.verifier = verifier
        self.metrics = metrics
    }

    func add(to router: Router<VerifierRequestContext>) {
        let group = router.group()
            .add(middleware: DoorRateGate(controller: self))
            .add(middleware: DoorBodyReader(controller: self))
            .add(middleware: DoorAdmission(controller: self))
        for path in routes.keys.sorted() {
            group.post(RouterPath(path)) { _, context -> Response in
                guard let route = context.door.route, let admitted = context.door.admitted else {
                    return VerifierServer.json(500, "{\"error\":\"door request reached its route unadmitted\"}")
                }
                let answer = await route.endpoint.decide(admitted)
                return await respond(answer, route: route, incoming: admitted.incoming, started: context.door.started)
            }
        }
    }

    /// Counts `answer` for `route`, notes a refusal in the address's tally where the route
    /// asks for it, and makes the HTTP answer (with `Retry-After` on a 429).
    func respond(_ answer: DoorAnswer, route: DoorRoute, incoming: ReferenceVerifier.Incoming?, started: ContinuousClock.Instant? = nil) async -> Response {
        switch (route.counting, answer) {
        case (.decisions, .decision(let decision)): metrics.record(decision, duration: started.map { .now - $0 } ?? .zero)
        default: metrics.recordEndpoint(route.name, result: answer.result)
        }
        switch answer {
        case .decision(let decision):
            let reply = HTTPReply(decision)
            var headers: HTTPFields = [.contentType: "application/json"]
            if reply.status == 429 { headers[.retryAfter] = String(verifier.retryAfterSeconds) }
            return Response(status: HTTPResponse.Status(code: reply.status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: reply.body)))
        case .outcome(let outcome):
            // A door over its event quota is its own limit, not a refusal of the address.
            if route.notesRefusals, let incoming, case .refused(let refusal, let reason) = outcome {
                await verifier.noteRefused(refusal, reason, endpoint: route.name, incoming)
            }
            return await VerifierServer.doorResponse(outcome)
        }
    }
}

extension DoorAnswer {
    /// The `result` label the answer is counted under.
    var result: String {
        switch self {
        case .decision(let decision): return VerifierMetrics.result(decision)
        case .outcome(let outcome): return outcome.result
        }
    }
}
