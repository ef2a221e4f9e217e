import Crypto
import Foundation
import KioskPadAccess
import KioskPadCore

/// `POST /v1/check-in`: an adopted door asks, signed with its own secret, whether the site
/// has anything for it, and says which settings version it runs (and one it refused, why).
/// The answer says when to ask again; while a rotation of its secret waits, it carries the
/// next secret sealed under the current one (``SecretRotationSeal``; the first request the
/// door then signs with it ends the current one, ``DoorSignature``); when the door runs
/// another settings version than the site's, and has not refused that one, it carries the
/// door's settings signed with the replica key (``DoorSettings``); while the replica key is
/// rotated, what the door must learn of it (``ReplicaKeyStatement``, from the keys it says
/// it trusts). An unsigned request is refused: only a door's own secret opens a rotation.
/// All of it is read in one statement with the door's key (``DoorCheckInView``); the door's
/// report is written only when it differs from the last.
public struct DoorCheckIn: Sendable {
    /// How often a door checks in (the site's `server.check_in_seconds`).
    public let interval: Int
    private let keys: DoorKeys
    private let settings: any DoorSettingsStore
    private let replica: any ReplicaKeeping
    private let clock: @Sendable () -> Date

    public init(
        store: any VerifierStore, settings: any DoorSettingsStore, replica: any ReplicaKeeping, siteSecret: WebhookSecret?,
        interval: Int, clock: @escaping @Sendable () -> Date = Date.init
    ) {
        keys = DoorKeys(store: store, siteSecret: siteSecret, checkInViews: settings)
        self.settings = settings
        self.replica = replica
        self.interval = interval
        self.clock = clock
    }

    static let replicaKeysShape = "replica_keys must be the one or two replica keys the door trusts, each ed25519: and 32 bytes in base64"

    public func gate(_ request: ReferenceVerifier.Incoming) async -> Result<AdmittedDoorRequest, DoorRequestOutcome.Refused> {
        let rules = DoorGate.Rules(
            unsigned: "a check-in must be signed with the door's own secret (doors adopted with kioskpad pair)", maxBody: nil,
            claimsWebhookID: false, inBody: DoorGate.objectTerminal)
        return await DoorGate.admit(request, rules: rules, keys: keys, now: clock())
    }

    /// The body held to its schema (`terminal_id`, `settings_version`, `settings_refused`,
    /// `replica_keys`), then the answer.
    public func answer(_ admitted: AdmittedDoorRequest) async -> DoorRequestOutcome {
        let fields: StrictJSON.Fields
        let terminal: String
        switch admitted.objectNamingItsDoor(
            allowed: ["terminal_id", "settings_version", "settings_refused", "replica_keys"],
            properties: "terminal_id, settings_version, settings_refused and replica_keys")
        {
        case .failure(let refused): return refused.outcome
        case .success(let body): (fields, terminal) = body
        }
        // Present means present: null is neither a version nor a refusal.
        let sent = fields.sent
        let running = fields.integer("settings_version") ?? 0
        guard running >= 0, !sent("settings_version") || fields.integer("settings_version") != nil else {
            return .malformed("settings_version must be the settings version the door runs, 0 for none")
        }
        var refused: (version: Int64, reason: String)?
        if sent("settings_refused") {
            guard let object = fields.object["settings_refused"].flatMap(StrictJSON.Fields.init), let version = object.integer("version"), version > 0,
                let reason = object.string("reason"), reason.count <= 1_000, object.unknownKey(allowed: ["version", "reason"]) == nil
            else { return .malformed("settings_refused must be {version, reason}: the version refused and why, at most 1000 characters") }
            refused = (version, reason)
        }
        var trusted: [ReplicaPublicKey] = []
        if sent("replica_keys") {
            guard case .array(let items)? = fields.object["replica_keys"], (1...2).contains(items.count) else {
                return .malformed(Self.replicaKeysShape)
            }
            for item in items {
                guard case .string(let text) = item, let key = try? ReplicaPublicKey(parsing: String(decoding: text, as: UTF8.self)) else {
                    return .malformed(Self.replicaKeysShape)
                }
                trusted.append(key)
            }
        }
        // The gate read the door's key with all the rest (one statement); the report is
        // written only when it differs from the last.
        guard let view = admitted.checkInView else { return .unavailable }
        do {
            // Signed with the site secret, which every door given it holds: only a door the site
            // has heard of is answered, so that secret cannot make a settings row for any name.
            if case .siteSecret = view.key, !view.hasForwarded {
                return .unauthenticated(
                    "door '\(terminal)' signed with the site secret and has not reported to this site (forwarded events or a status); "
                        + "a check-in is taken from an adopted door (kioskpad pair) or one with its own secret (verifier terminal add)")
            }
            var answer = "{\"check_in_s\":\(interval)"
            let signing: ReplicaSigningKeys
            if let stored = view.signingKey {
                signing = ReplicaSigningKeys(
                    current: try Curve25519.Signing.PrivateKey(rawRepresentation: stored),
                    next: try view.nextSigningKey.map { try Curve25519.Signing.PrivateKey(rawRepresentation: $0) })
            } else {
                signing = try await replica.signingKeys()  // made here only on a database that never was
            }
            if let statement = signing.statement(forDoorTrusting: trusted) {
                // Either way the key the site signs with now: for `next` the one the door
                // trusts, for `current` (sent once the rotation ended) the new key itself.
                let signature = try statement.signature(terminalID: terminal, signer: signing.current)
                answer += ",\"replica_key\":{\"\(statement.property)\":\"\(statement.key)\",\"signature\":\"\(signature)\"}"
            }
            if case .own(let current, let next?, _, _) = view.key, !view.rotationFinished {
                answer += ",\"rotation\":{\"sealed\":\"\(try SecretRotationSeal.seal(next, current: current, terminalID: terminal))\"}"
            }
            let report = DoorSettingsState(terminalID: terminal, running: running, refused: refused, replicaKeys: trusted.map(\.description))
            if view.reported != report {
                try await settings.noteSettings(
                    door: terminal, running: running, refused: refused, replicaKeys: report.replicaKeys.joined(separator: " "), now: clock())
            }
            let version = view.settingsVersion
            if version != running && refused?.version != version {
                let payload = Array(
                    "{\"kind\":\"settings\",\"settings\":\(view.effectiveSettings.json),\"terminal_id\":\"\(terminal)\",\"version\":\(version)}".utf8)
                let signature = try signing.current.signature(for: payload)
                answer += ",\"settings\":{\"payload\":\"\(Data(payload).base64EncodedString())\",\"signature\":\"\(signature.base64EncodedString())\"}"
            }
            return .done(answer + "}")
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
