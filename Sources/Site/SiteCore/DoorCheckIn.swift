import Foundation
import KioskPadAccess
import KioskPadCore

/// `POST /v1/check-in`: an adopted door asks, signed with its own secret, whether the site
/// has anything for it. The answer says when to ask again and, while a rotation of its secret
/// waits, carries the next secret sealed under the current one (``SecretRotationSeal``). The
/// first request the door then signs with the next secret ends the current one
/// (``DoorSignature``). An unsigned request is refused: only a door's own secret opens a rotation.
public struct DoorCheckIn: Sendable {
    /// How often a door checks in (the site's `server.check_in_seconds`).
    public let interval: Int
    private let keys: DoorKeys
    private let clock: @Sendable () -> Date

    public init(store: any VerifierStore, siteSecret: WebhookSecret?, interval: Int, clock: @escaping @Sendable () -> Date = Date.init) {
        keys = DoorKeys(store: store, siteSecret: siteSecret)
        self.interval = interval
        self.clock = clock
    }

    public func gate(_ request: ReferenceVerifier.Incoming) async -> Result<AdmittedDoorRequest, DoorRequestOutcome.Refused> {
        let rules = DoorGate.Rules(
            unsigned: "a check-in must be signed with the door's own secret (doors adopted with kioskpad pair)", maxBody: nil,
            claimsWebhookID: false, inBody: DoorGate.objectTerminal)
        return await DoorGate.admit(request, rules: rules, keys: keys, now: clock())
    }

    /// The body held to its schema (`terminal_id`), then the answer.
    public func answer(_ admitted: AdmittedDoorRequest) async -> DoorRequestOutcome {
        let fields: StrictJSON.Fields?
        switch admitted.body {
        case .failure(let problem): return .malformed("body is ambiguous or malformed JSON: \(problem)")
        case .success(let value): fields = StrictJSON.Fields(value)
        }
        if let unknown = fields?.unknownKey(allowed: ["terminal_id"]) { return .malformed("unknown property \(unknown) (the body has terminal_id)") }
        guard let terminal = fields?.string("terminal_id"), Identifier.isValid(terminal) else {
            return .malformed("terminal_id must be a terminal_id (1-64 of letters, digits, '.', '_' or '-')")
        }
        guard admitted.terminal == terminal else { return .malformed(ClaimedTerminal.mismatch(body: terminal, claimed: admitted.terminal)) }
        do {
            var rotation = ""
            if case .own(let current, let next?, _) = try await keys.store.doorKey(terminal: terminal) {
                rotation = ",\"rotation\":{\"sealed\":\"\(try SecretRotationSeal.seal(next, current: current, terminalID: terminal))\"}"
            }
            return .done("{\"check_in_s\":\(interval)\(rotation)}")
        } catch {
            return .unavailable
        }
    }
}

extension DoorCheckIn: DoorEndpoint {
    public func admit(_ request: ReferenceVerifier.Incoming) async -> Result<AdmittedDoorRequest, DoorEndpointRefusal> {
        await gate(request).mapError { DoorEndpointRefusal(.outcome($0.outcome)) }
    }

    public func decide(_ request: AdmittedDoorRequest) async -> DoorAnswer { .outcome(await answer(request)) }
}
