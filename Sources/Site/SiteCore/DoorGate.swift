import Foundation
import KioskPadAccess
import KioskPadCore

/// A door's request that passed the gate every door endpoint shares: its content type,
/// size, the door it claims, its signature with that door's key and its `webhook-id`. It
/// carries the body as read in one strict pass (``StrictJSON``), so the endpoint decodes
/// it from there and never parses it again.
public struct AdmittedDoorRequest: Sendable {
    public let incoming: ReferenceVerifier.Incoming
    /// The door it claims (the `kioskpad-terminal` header, else its body); nil: none named.
    public let terminal: String?
    /// Its `webhook-id` when it was signed and the endpoint claims ids (nil otherwise).
    public let requestID: String?
    /// The body, read once.
    public let body: Result<StrictJSON.Value, StrictJSON.Problem>
    /// What a check-in reads, read by the gate with the door's key (nil for other endpoints).
    var checkInView: DoorCheckInView? = nil
}

/// The one admission of `/verify`, `/v1/enrol`, `/v1/events` and `/v1/credentials`, in this
/// order: `application/json`; the size; the claimed door (header, else the body, which is
/// then the only parse); the signature with that door's key (its own secret, else the site
/// secret); a request no key applies to, let through or refused as the endpoint says; the
/// `webhook-id` of a signed request (128 characters at most, one line). A refusal is a
/// ``DoorRequestOutcome``; the endpoint audits it as its own.
enum DoorGate {
    /// What an endpoint asks of the gate.
    struct Rules {
        /// The refusal of a request no key applies to (nil: let through, `allow_unsigned`).
        var unsigned: String?
        /// The most body bytes (nil: the reader's cap alone).
        var maxBody: Int?
        /// Whether a signed request's `webhook-id` is checked and handed on to be claimed.
        var claimsWebhookID: Bool
        /// Where the body names its door, for an older door that sends no header.
        var inBody: @Sendable (StrictJSON.Value) -> String?
    }

    static func admit(
        _ request: ReferenceVerifier.Incoming, rules: Rules, keys: DoorKeys, now: Date
    ) async -> Result<AdmittedDoorRequest, DoorRequestOutcome.Refused> {
        guard ReferenceVerifier.isJSON(request.contentType) else { return .failure(.init(.malformed("content-type must be application/json"))) }
        if let maxBody = rules.maxBody, request.body.count > maxBody { return .failure(.init(.malformed("body larger than \(maxBody) bytes"))) }
        // An older door's body is read here, to find its door; a door of this release's after its signature.
        var parsed: Result<StrictJSON.Value, StrictJSON.Problem>?
        if request.terminal == nil { parsed = StrictJSON.parse(request.body) }
        let named = { [parsed] (_: [UInt8]) -> String? in (try? parsed?.get()).flatMap(rules.inBody) }
        let terminal: String?
        switch ClaimedTerminal.of(request, inBody: named) {
        case .named(let claimed): terminal = claimed
        case .invalid(let why): return .failure(.init(.malformed(why)))
        }
        let signature: DoorSignature.Check
        var view: DoorCheckInView?
        do {
            var key = DoorKey.siteSecret
            if let terminal, let views = keys.checkInViews {
                view = try await views.checkInView(door: terminal)
                key = view?.key ?? key
            } else if let terminal {
                key = try await keys.store.doorKey(terminal: terminal)
            }
            signature = try await DoorSignature.check(request, terminal: terminal, key: key, store: keys.store, siteSecret: keys.siteSecret, now: now)
        } catch {
            return .failure(.init(.unavailable))
        }
        var requestID: String?
        switch signature {
        case .refused(let why): return .failure(.init(.unauthenticated(why)))
        case .retired(let why): return .failure(.init(.unauthenticated(why), retiredDoor: terminal))
        case .noKey: if let unsigned = rules.unsigned { return .failure(.init(.unauthenticated(unsigned))) }
        case .signed(let finishedRotation):
            view?.rotationFinished = finishedRotation
            guard rules.claimsWebhookID else { break }
            let id = request.webhookID ?? ""
            guard id.utf8.count <= 128, !id.contains(where: \.isNewline) else { return .failure(.init(.malformed("webhook-id longer than 128 characters"))) }
            requestID = id
        }
        return .success(
            AdmittedDoorRequest(
                incoming: request, terminal: terminal, requestID: requestID, body: parsed ?? StrictJSON.parse(request.body), checkInView: view))
    }

    /// The `terminal_id` of a body that is one object (`/verify`, `/v1/enrol`, `/v1/credentials`).
    @Sendable static func objectTerminal(_ body: StrictJSON.Value) -> String? {
        body.object?["terminal_id"]?.text
    }

    /// The first record's `data.terminal_id` (`/v1/events`: a batch from an older door).
    @Sendable static func batchTerminal(_ body: StrictJSON.Value) -> String? {
        guard case .array(let items) = body else { return nil }
        return items.lazy.compactMap { $0.object?["data"]?.object?["terminal_id"]?.text }.first
    }
}

extension AdmittedDoorRequest {
    /// The body of a door endpoint that takes one object naming its door (`/v1/credentials`,
    /// `/v1/check-in`): only `allowed` properties (`properties` says which, for the error), a
    /// `terminal_id` that is one, and the door the request claimed. The refusal names what is wrong.
    func objectNamingItsDoor(allowed: Set<String>, properties: String) -> Result<(fields: StrictJSON.Fields, terminal: String), DoorRequestOutcome.Refused> {
        let fields: StrictJSON.Fields?
        switch body {
        case .failure(let problem): return .failure(.init(.malformed("body is ambiguous or malformed JSON: \(problem)")))
        case .success(let value): fields = StrictJSON.Fields(value)
        }
        if let unknown = fields?.unknownKey(allowed: allowed) { return .failure(.init(.malformed("unknown property \(unknown) (the body has \(properties))"))) }
        guard let fields, let named = fields.string("terminal_id"), Identifier.isValid(named) else {
            return .failure(.init(.malformed("terminal_id must be a terminal_id (1-64 of letters, digits, '.', '_' or '-')")))
        }
        guard terminal == named else { return .failure(.init(.malformed(ClaimedTerminal.mismatch(body: named, claimed: terminal)))) }
        return .success((fields, named))
    }
}

extension DoorRequestOutcome {
    /// An outcome that ends a request before its endpoint decides (a refusal, or unavailable).
    public struct Refused: Error, Sendable {
        public let outcome: DoorRequestOutcome
        /// The door, when it was refused for being retired (the push channel then says so, signed).
        public let retiredDoor: String?
        init(_ outcome: DoorRequestOutcome, retiredDoor: String? = nil) {
            self.outcome = outcome
            self.retiredDoor = retiredDoor
        }
    }
}
