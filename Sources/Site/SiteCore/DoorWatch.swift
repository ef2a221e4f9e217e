import Foundation
import KioskPadAccess
import KioskPadCore

/// `POST /v1/watch`, the doors' push channel: a door asks, signed as for its replica, with
/// the version it holds, and the site holds the request until the replica's version passes
/// it (``ReplicaVersionWatch``) or `wait_s` (1 to 55, default 25) runs out, then answers
/// `{"replica_version": N}`. A door told of a newer version syncs at once; with the channel
/// down it polls every `sync_s` as before. The answer is a hint, not a replica: what the door
/// then fetches is signed with the replica key, so a forged hint costs it one sync.
///
/// A door that sends a `nonce` (and `have_command`, the last remote command it took) is
/// answered at once when a live command for it is numbered above that: `commands`, each a
/// ``SignedDoorCommand`` naming the door and the nonce, signed with the replica key. Commands
/// up to `have_command` are marked delivered.
///
/// An adopted door that sends `have_settings` (the newest settings version it knows: the
/// one it runs, or one it refused) is answered at once with `"check_in": true` when the
/// site's settings version is above it or a rotation of its secret waits: the door then
/// checks in, and what it fetches there is signed as ever, so a forged hint costs one check-in.
public struct DoorWatch: Sendable {
    /// How long a door waits when it says nothing, and the most it may ask for.
    public static let defaultWait = 25
    public static let maxWait = 55

    private let keys: DoorKeys
    private let watch: ReplicaVersionWatch
    private let commands: (store: any DoorCommandStore, keys: any ReplicaKeeping)?
    private let clock: @Sendable () -> Date

    public init(
        watch: ReplicaVersionWatch, store: any VerifierStore, siteSecret: WebhookSecret?,
        commands: (store: any DoorCommandStore, keys: any ReplicaKeeping)? = nil, clock: @escaping @Sendable () -> Date = Date.init
    ) {
        self.watch = watch
        keys = DoorKeys(store: store, siteSecret: siteSecret)
        self.commands = commands
        self.clock = clock
    }

    /// The gate every door endpoint shares; only a signed request waits.
    public func gate(_ request: ReferenceVerifier.Incoming) async -> Result<AdmittedDoorRequest, DoorRequestOutcome.Refused> {
        let rules = DoorGate.Rules(
            unsigned: "the push channel is only for a signed request: give the verifier server.secret_file or the door its own secret", maxBody: 1_024,
            claimsWebhookID: false, inBody: DoorGate.objectTerminal)
        return await DoorGate.admit(request, rules: rules, keys: keys, now: clock())
    }

    /// The body held to its schema (`terminal_id`, `have_version`, `wait_s`, `have_command`,
    /// `nonce`), then the wait.
    public func answer(_ admitted: AdmittedDoorRequest) async -> DoorRequestOutcome {
        let fields: StrictJSON.Fields
        let terminal: String
        switch admitted.objectNamingItsDoor(
            allowed: ["terminal_id", "have_version", "wait_s", "have_command", "nonce", "have_settings"],
            properties: "terminal_id, have_version, wait_s, have_command, nonce and have_settings")
        {
        case .failure(let refused): return refused.outcome
        case .success(let body): (fields, terminal) = body
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
        // Present means present: null is neither a nonce nor a command's number.
        let sent = fields.sent
        var takes: (nonce: String, after: Int64)?
        if sent("nonce") {
            guard let nonce = fields.string("nonce"), (16...64).contains(nonce.count) else {
                return .malformed("nonce must be a string of 16 to 64 characters, new for every request")
            }
            var after: Int64 = 0
            if sent("have_command") {
                guard let last = fields.integer("have_command"), last >= 0 else {
                    return .malformed("have_command must be the number of the last remote command the terminal took, 0 for none")
                }
                after = last
            }
            takes = (nonce, after)
        } else if sent("have_command") {
            return .malformed("have_command needs a nonce: a door takes remote commands only with one")
        }
        var checkInFor: (terminal: String, settingsAbove: Int64)?
        if sent("have_settings") {
            guard let known = fields.integer("have_settings"), known >= 0 else {
                return .malformed("have_settings must be the newest settings version the terminal knows (runs or refused), 0 for none")
            }
            checkInFor = (terminal, known)
        }
        let checkIn = #",\"check_in\":true"#
        guard let commands, let takes else {
            let wake = await watch.wake(from: have, commandsFor: nil, checkInFor: checkInFor, within: .seconds(wait))
            return .done(json: Array("{\"replica_version\":\(wake?.version ?? have)\(wake?.checkIn == true ? checkIn : "")}".utf8))
        }
        do {
            if takes.after > 0 { try await commands.store.markDoorCommandsDelivered(terminal: terminal, through: takes.after, at: clock()) }
            var live = try await commands.store.liveDoorCommands(terminal: terminal, after: takes.after, now: clock())
            var wake = ReplicaVersionWatch.Wake(version: have, checkIn: false)
            if live.isEmpty {
                wake = await watch.wake(from: have, commandsFor: (terminal, takes.after), checkInFor: checkInFor, within: .seconds(wait)) ?? wake
                live = try await commands.store.liveDoorCommands(terminal: terminal, after: takes.after, now: clock())
            }
            let signed = try await sign(live, nonce: takes.nonce, keys: commands.keys)
            var object: [String: Any] = ["replica_version": wake.version, "commands": signed.map(\.jsonObject)]
            if wake.checkIn { object["check_in"] = true }
            return .done(json: Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])))
        } catch {
            return .unavailable
        }
    }

    /// A retired door's refusal, carrying (when the body has a `nonce` and the site signs
    /// commands) the site's signed word that it is retired, for that nonce: the door then
    /// stops deciding offline. The body is read unsigned: the nonce is the door's own
    /// challenge, and the statement is true of the door whoever asks.
    private func retirement(of door: String, asked request: ReferenceVerifier.Incoming, refused: DoorRequestOutcome) async -> DoorRequestOutcome {
        guard let commands, case .refused(_, let reason) = refused,
            let fields = (try? StrictJSON.parse(request.body).get()).flatMap(StrictJSON.Fields.init),
            let nonce = fields.string("nonce"), (16...64).contains(nonce.count)
        else { return refused }
        do {
            let key = try await commands.keys.signingKeys().current
            let signed = try SignedDoorCommand(signing: DoorRetirement(terminalID: door, nonce: nonce, issuedAt: clock()), with: key)
            return .retired(reason: reason, statement: signed.jsonObject)
        } catch {
            return refused
        }
    }

    /// Each of `live` signed for the request that carried `nonce`.
    private func sign(_ live: [StoredDoorCommand], nonce: String, keys: any ReplicaKeeping) async throws -> [SignedDoorCommand] {
        guard !live.isEmpty else { return [] }
        let key = try await keys.signingKeys().current
        return try live.map { command in
            try SignedDoorCommand(
                signing: DoorCommand(
                    terminalID: command.terminalID, id: command.id, action: command.action, seconds: command.seconds, nonce: nonce,
                    issuedAt: command.issuedAt),
                with: key)
        }
    }
}

extension DoorWatch: DoorEndpoint {
    public func admit(_ request: ReferenceVerifier.Incoming) async -> Result<AdmittedDoorRequest, DoorEndpointRefusal> {
        switch await gate(request) {
        case .success(let admitted): return .success(admitted)
        case .failure(let refused):
            guard let door = refused.retiredDoor else { return .failure(DoorEndpointRefusal(.outcome(refused.outcome))) }
            return .failure(DoorEndpointRefusal(.outcome(await retirement(of: door, asked: request, refused: refused.outcome))))
        }
    }

    public func decide(_ request: AdmittedDoorRequest) async -> DoorAnswer { .outcome(await answer(request)) }
}
