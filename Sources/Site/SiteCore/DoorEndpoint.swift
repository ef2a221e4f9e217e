/// What a door's request came to: a verifier decision (`/verify`, `/v1/enrol`) or a door
/// endpoint's outcome (`/v1/events`, `/v1/credentials`). `SiteHTTP` answers either.
public enum DoorAnswer: Sendable {
    case decision(VerifierDecision)
    case outcome(DoorRequestOutcome)
}

/// One door endpoint as the HTTP controller drives it: the gate first (``admit(_:)``, which
/// audits what it refuses as the endpoint does), then the decision on the admitted request.
public protocol DoorEndpoint: Sendable {
    func admit(_ request: ReferenceVerifier.Incoming) async -> Result<AdmittedDoorRequest, DoorEndpointRefusal>
    func decide(_ request: AdmittedDoorRequest) async -> DoorAnswer
}

/// A door request answered at the gate.
public struct DoorEndpointRefusal: Error, Sendable {
    public let answer: DoorAnswer
    public init(_ answer: DoorAnswer) { self.answer = answer }
}

/// `POST /verify`: an attempt (``ReferenceVerifier/admit(_:)``, ``ReferenceVerifier/decide(_:)``).
public struct AttemptEndpoint: DoorEndpoint {
    let verifier: ReferenceVerifier
    public init(_ verifier: ReferenceVerifier) { self.verifier = verifier }

    public func admit(_ request: ReferenceVerifier.Incoming) async -> Result<AdmittedDoorRequest, DoorEndpointRefusal> {
        switch await verifier.admit(request) {
        case .admitted(let admitted): return .success(admitted)
        case .refused(let decision): return .failure(.init(.decision(decision)))
        }
    }

    public func decide(_ request: AdmittedDoorRequest) async -> DoorAnswer { .decision(await verifier.decide(request)) }
}

/// `POST /v1/enrol`: a PIN chosen at a door (the attempt's gate, then ``ReferenceVerifier/decideEnrolment(_:)``).
public struct EnrolmentEndpoint: DoorEndpoint {
    let attempts: AttemptEndpoint
    public init(_ verifier: ReferenceVerifier) { attempts = AttemptEndpoint(verifier) }

    public func admit(_ request: ReferenceVerifier.Incoming) async -> Result<AdmittedDoorRequest, DoorEndpointRefusal> {
        await attempts.admit(request)
    }

    public func decide(_ request: AdmittedDoorRequest) async -> DoorAnswer { .decision(await attempts.verifier.decideEnrolment(request)) }
}

extension DoorEventIntake: DoorEndpoint {
    public func admit(_ request: ReferenceVerifier.Incoming) async -> Result<AdmittedDoorRequest, DoorEndpointRefusal> {
        await gate(request).mapError { DoorEndpointRefusal(.outcome($0.outcome)) }
    }

    public func decide(_ request: AdmittedDoorRequest) async -> DoorAnswer { .outcome(await store(request)) }
}

extension CredentialService: DoorEndpoint {
    public func admit(_ request: ReferenceVerifier.Incoming) async -> Result<AdmittedDoorRequest, DoorEndpointRefusal> {
        await gate(request).mapError { DoorEndpointRefusal(.outcome($0.outcome)) }
    }

    public func decide(_ request: AdmittedDoorRequest) async -> DoorAnswer { .outcome(await answer(request)) }
}
