import Foundation
import KioskPadAccess
import KioskPadCore

/// `POST /v1/watch`, the doors' push channel: a door asks, signed as for its replica, with
/// the version it holds, and the site holds the request until the replica's version passes
/// it (``ReplicaVersionWatch``) or `wait_s` (1 to 55, default 25) runs out, then answers
/// `{"replica_version": N}`. A door told of a newer version syncs at once; with the channel
/// down it polls every `sync_s` as before. The answer is a hint, not a replica: what the door
/// then fetches is signed with the replica key, so a forged hint costs it one sync.
public struct DoorWatch: Sendable {
    /// How long a door waits when it says nothing, and the most it may ask for.
    public static let defaultWait = 25
    public static let maxWait = 55

    private let keys: DoorKeys
    private let watch: ReplicaVersionWatch
    private let clock: @Sendable () -> Date

    public init(watch: ReplicaVersionWatch, store: any VerifierStore, siteSecret: WebhookSecret?, clock: @escaping @Sendable () -> Date = Date.init) {
        self.watch = watch
        keys = DoorKeys(store: store, siteSecret: siteSecret)
        self.clock = clock
    }

    /// The gate every door endpoint shares; only a signed request waits.
    public func gate(_ request: ReferenceVerifier.Incoming) async -> Result<AdmittedDoorRequest, DoorRequestOutcome.Refused> {
        let rules = DoorGate.Rules(
            unsigned: "the push channel is only for a signed request: give the verifier server.secret_file or the door its own secret", maxBody: 1_024,
            claimsWebhookID: false, inBody: DoorGate.objectTerminal)
        return await DoorGate.admit(request, rules: rules, keys: keys, now: clock())
    }

    /// The body held to its schema (`terminal_id`, `have_version`, `wait_s`), then the wait.
    public func answer(_ admitted: AdmittedDoorRequest) async -> DoorRequestOutcome {
        let fields: StrictJSON.Fields
        switch admitted.objectNamingItsDoor(
            allowed: ["terminal_id", "have_version", "wait_s"], properties: "terminal_id, have_version and wait_s")
        {
        case .failure(let refused): return refused.outcome
        case .success(let body): fields = body.0
        }
        guard let have = fields.integer("have_version"), have >= 0 else {
            return .malformed("have_version must be the replica version the terminal holds, 0 for none")
        }
        var wait = Self.defaultWait
        if fields.has("wait_s") {
            guard let asked = fields.integer("wait_s"), (1...Int64(Self.maxWait)).contains(asked) else {
                return .malformed("wait_s must be a whole number of seconds from 1 to \(Self.maxWait)")
            }
            wait = Int(asked)
        }
        let version = await watch.change(from: have, within: .seconds(wait)) ?? have
        return .done(json: Array("{\"replica_version\":\(version)}".utf8))
    }
}

extension DoorWatch: DoorEndpoint {
    public func admit(_ request: ReferenceVerifier.Incoming) async -> Result<AdmittedDoorRequest, DoorEndpointRefusal> {
        await gate(request).mapError { DoorEndpointRefusal(.outcome($0.outcome)) }
    }

    public func decide(_ request: AdmittedDoorRequest) async -> DoorAnswer { .outcome(await answer(request)) }
}
