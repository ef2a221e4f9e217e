import HTTPTypes
import SiteCore

/// One door route as the ``DoorController`` serves it: its path, its name in the metrics and
/// in audit records, the most body bytes it reads, the endpoint that admits and decides, and
/// how its answers are counted.
struct DoorRoute: Sendable {
    /// Where an answer is counted.
    enum Counting: Sendable {
        /// `kioskpad_verifier_decisions_total` and the decision latency (`/verify`).
        case decisions
        /// `kioskpad_verifier_door_requests_total{endpoint=NAME}`.
        case endpoint
    }

    let path: String
    let name: String
    let maxBody: Int
    let endpoint: any DoorEndpoint
    let counting: Counting
    /// Whether the controller notes the route's refusals in `/verify`'s per-address tally
    /// (an endpoint whose gate does not audit its own refusals).
    let notesRefusals: Bool
    /// An answer given before the body is read (a door over its event quota), else nil.
    var beforeBody: @Sendable (HTTPFields) -> DoorAnswer? = { _ in nil }
}

/// What the door middleware learned of a request, for the next step and the route.
struct DoorRequestState: Sendable {
    var route: DoorRoute?
    var incoming: ReferenceVerifier.Incoming?
    var admitted: AdmittedDoorRequest?
    var started: ContinuousClock.Instant?
}
