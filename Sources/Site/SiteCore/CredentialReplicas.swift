import Crypto
import Foundation
import KioskPadAccess
import KioskPadCore

/// The replica's state in the verifier's database: a version, which every committed change of
/// a user, rule, schedule, the site's zone or a door's secret moves to that change's position
/// in the change log (schema version 24; the tables' triggers mark the transaction, so no
/// writer can forget it), and the Ed25519 key replicas are signed with.
public protocol ReplicaKeeping: Sendable {
    /// The replica version now.
    func replicaVersion() async throws -> Int64
    /// The signing key (raw 32 bytes). The first call on a database stores `make()`'s key;
    /// every later call, on any instance, returns that one.
    func replicaSigningKey(make: @escaping @Sendable () -> [UInt8]) async throws -> [UInt8]
    /// The signing key (nil until made) and the key a rotation will sign with (nil when none is
    /// under way), raw 32 bytes each, in one read and without a write: asked for each door request.
    func replicaSigningKeyPair() async throws -> (current: [UInt8]?, next: [UInt8]?)
    /// Starts a rotation with `next`; false when one is under way already.
    func beginReplicaKeyRotation(next: [UInt8]) async throws -> Bool
    /// Ends the rotation: the next key signs from now on and the old one is forgotten; the
    /// replica's version moves, so every door fetches one signed with the new key. False
    /// when none was under way.
    func finishReplicaKeyRotation() async throws -> Bool
    /// The replica tag key (raw 32 bytes), made on first use as the signing key is.
    func replicaTagKey(make: @escaping @Sendable () -> [UInt8]) async throws -> [UInt8]
    /// Gives the credential of `name` whose hash is `hash` its replica tag (a full
    /// ``ReplicaTagKey/tag(_:kind:)``); a change, so the version moves.
    func setReplicaTag(name: String, hash: PINHash, tag: String) async throws
    /// Every replica tag: the credential's hash (PHC string) to its tag.
    func replicaTags() async throws -> [String: String]
    /// The credential lines (PINs, duress PINs, cards) of the users `names`, in the order they
    /// were added, each with its replica tag: what a delta sends for them.
    func replicaLines(of names: [String]) async throws -> [(record: UserRecord, tag: String?)]
}

extension ReplicaKeeping {
    /// The signing key, made on first use.
    public func signingKey() async throws -> Curve25519.Signing.PrivateKey {
        let raw = try await replicaSigningKey { Array(Curve25519.Signing.PrivateKey().rawRepresentation) }
        return try Curve25519.Signing.PrivateKey(rawRepresentation: raw)
    }

    /// The signing key and, while a rotation is under way, the next one; read for each
    /// request, so every instance signs with the same key once a rotation ends.
    public func signingKeys() async throws -> ReplicaSigningKeys {
        let (stored, next) = try await replicaSigningKeyPair()
        // Made at start (`verifier serve`, a migration); made here only on a database that never was.
        let current: Curve25519.Signing.PrivateKey
        if let stored { current = try Curve25519.Signing.PrivateKey(rawRepresentation: stored) } else { current = try await signingKey() }
        return ReplicaSigningKeys(
            current: current,
            next: try next.map { try Curve25519.Signing.PrivateKey(rawRepresentation: $0) })
    }

    /// The replica tag key, made on first use.
    public func tagKey() async throws -> ReplicaTagKey {
        ReplicaTagKey(raw: try await replicaTagKey { Array(SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }) })
    }

    /// Tags the credential just set for `name` (its `hash`, of `value` typed as `kind`), so
    /// doors can look it up offline with one HMAC.
    public func tagForReplica(name: String, hash: PINHash, value: SecretDigits, kind: AttemptKind) async throws {
        try await setReplicaTag(name: name, hash: hash, tag: try await tagKey().tag(value, kind: kind))
    }

    /// The public key terminals pin (`verifier.offline.public_key`).
    public func publicKey() async throws -> ReplicaPublicKey {
        ReplicaPublicKey(try await signingKey().publicKey)
    }
}

/// The site's replica keys: the one it signs with, and the next one while a rotation is
/// under way (``ReplicaKeyChanges``).
public struct ReplicaSigningKeys: Sendable {
    public let current: Curve25519.Signing.PrivateKey
    public let next: Curve25519.Signing.PrivateKey?

    public var currentPublic: ReplicaPublicKey { ReplicaPublicKey(current.publicKey) }
    public var nextPublic: ReplicaPublicKey? { next.map { ReplicaPublicKey($0.publicKey) } }

    /// What a door that trusts `reported` should be told: the next key while a rotation is
    /// under way and the door lacks it; once it ended, that the current key is the only one,
    /// to a door that trusts it and another. Nil when the door has nothing to learn, or
    /// reported nothing (a door older than rotations).
    public func statement(forDoorTrusting reported: [ReplicaPublicKey]) -> ReplicaKeyStatement? {
        guard !reported.isEmpty else { return nil }
        if let next = nextPublic { return reported.contains(next) ? nil : .next(next) }
        return reported.contains(currentPublic) && reported.count > 1 ? .current(currentPublic) : nil
    }
}

/// `POST /v1/credentials`: a door asks, signed with its secret (as for `/verify`), for its
/// replica; it gets the whole replica, what changed since the version it holds (a delta, when
/// it sent that version's mark and only users changed), or a confirmation when it holds the
/// current version, each signed with the verifier's key. An unsigned request gets nothing: a
/// replica holds hashes.
public struct CredentialService: Sendable {
    let keeping: any ReplicaKeeping
    let administration: any VerifierAdministration
    private let keys: DoorKeys
    private let clock: @Sendable () -> Date
    /// Whole replicas' inputs, read once per version; their builds, on their own thread.
    public let builds = ReplicaBuilds()
    /// The change log a delta is read from.
    var log: any VerifierStore { keys.store }

    /// Replicas are signed with the site's replica key as it is when each is asked for
    /// (``ReplicaKeeping/signingKeys()``), so a rotation ended on any instance holds on all.
    public init(
        keeping: any ReplicaKeeping, administration: any VerifierAdministration, store: any VerifierStore, siteSecret: WebhookSecret?,
        clock: @escaping @Sendable () -> Date = Date.init
    ) {
        self.keeping = keeping
        self.administration = administration
        keys = DoorKeys(store: store, siteSecret: siteSecret)
        self.clock = clock
    }

    /// A request admitted (``gate(_:)``) and answered (``answer(_:)``).
    public func handle(_ request: ReferenceVerifier.Incoming) async -> DoorRequestOutcome {
        switch await gate(request) {
        case .failure(let refused): return refused.outcome
        case .success(let admitted): return await answer(admitted)
        }
    }

    /// The gate every door endpoint shares; a replica goes only to a signed request.
    public func gate(_ request: ReferenceVerifier.Incoming) async -> Result<AdmittedDoorRequest, DoorRequestOutcome.Refused> {
        let rules = DoorGate.Rules(
            unsigned: "a replica is given only to a signed request: give the verifier server.secret_file or the door its own secret", maxBody: nil,
            claimsWebhookID: true, inBody: DoorGate.objectTerminal)
        return await DoorGate.admit(request, rules: rules, keys: keys, now: clock())
    }

    /// The body held to its schema (`terminal_id`, `have_version`, `have_mark`), then the
    /// replica, a delta or a confirmation of the one the door holds, signed.
    public func answer(_ admitted: AdmittedDoorRequest) async -> DoorRequestOutcome {
        let fields: StrictJSON.Fields
        let terminal: String
        switch admitted.objectNamingItsDoor(
            allowed: ["terminal_id", "have_version", "have_mark"], properties: "terminal_id, have_version and have_mark")
        {
        case .failure(let refused): return refused.outcome
        case .success(let body): (fields, terminal) = body
        }
        // A whole number, as the schema says: not true, false, 1.5 or "1".
        guard let have = fields.integer("have_version"), have >= 0 else {
            return .malformed("have_version must be the version the terminal holds, 0 for none")
        }
        let mark = fields.string("have_mark")
        if fields.has("have_mark"), !(1...32).contains(mark?.count ?? 0) {
            return .malformed("have_mark must be the mark of the replica the terminal holds (a string of 1 to 32 characters), or left out")
        }
        do {
            let now = clock()
            // A captured request is answered once: its webhook-id (checked by the gate) is claimed like /verify's.
            guard try await keys.store.claimRequestID(admitted.requestID ?? "", now: now) else {
                return .refused(.replayed, reason: "webhook-id was already used (replay)")
            }
            let message: ReplicaMessage
            let current = try await keeping.replicaVersion()
            if have == current {
                message = .confirmation(terminalID: terminal, version: current, issuedAt: now)
            } else if let mark, let delta = try await delta(for: terminal, from: have, mark: mark, now: now) {
                message = .delta(delta)
            } else {
                // The whole replica: chosen, encoded and signed on the replica thread.
                let inputs = try await currentInputs()
                let key = try await keeping.signingKeys().current
                return .done(
                    json: try await ReplicaBuilds.thread.run {
                        try SignedReplica(signing: .replica(try Self.replica(for: terminal, inputs: inputs, now: now)), with: key).json
                    })
            }
            return .done(json: try SignedReplica(signing: message, with: try await keeping.signingKeys().current).json)
        } catch {
            return .unavailable
        }
    }

    /// `terminal`'s replica now, built on the replica thread from the current version's inputs.
    public func replica(for terminal: String, now: Date) async throws -> CredentialReplica {
        let inputs = try await currentInputs()
        return try await ReplicaBuilds.thread.run { try Self.replica(for: terminal, inputs: inputs, now: now) }
    }

    /// The current version's inputs (``ReplicaBuilds``): read between two reads of the
    /// version, again until they agree, once for all the doors that ask for that version.
    func currentInputs() async throws -> ReplicaBuilds.Inputs {
        while true {
            let before = try await keeping.replicaVersion()
            do {
                return try await builds.inputs(at: before) { [self] in
                    let site = try await administration.siteRules()
                    let records = try await administration.records()
                    let tags = try await keeping.replicaTags()
                    let tagKey = try await keeping.tagKey()
                    let mark = try await mark(of: before)
                    guard try await keeping.replicaVersion() == before else { throw ReplicaBuilds.Moved() }
                    return ReplicaBuilds.Inputs(version: before, site: site, records: records, tags: tags, tagKey: tagKey, mark: mark)
                }
            } catch is ReplicaBuilds.Moved {
                continue
            }
        }
    }

    /// `terminal`'s replica from one version's inputs (blocking work: on the replica thread).
    static func replica(for terminal: String, inputs: ReplicaBuilds.Inputs, now: Date) throws -> CredentialReplica {
        try replica(
            for: terminal, version: inputs.version, site: inputs.site, records: inputs.records, now: now, tags: inputs.tags, tagKey: inputs.tagKey,
            mark: inputs.mark)
    }

    /// Who may open `terminal` (their rule names it or no door; not disabled; not expired at
    /// `now`), their hashes, rules, the schedules those rules name, the holidays from
    /// yesterday on, and the mode the door follows.
    /// Entries whose hash has a tag in `tags` carry it cut to the bits the door's count of
    /// tagged entries needs.
    public static func replica(
        for terminal: String, version: Int64, site: SiteRules, records: [UserRecord], now: Date, tags: [String: String] = [:], tagKey: ReplicaTagKey? = nil,
        mark: String? = nil
    ) throws -> CredentialReplica {
        let zone = try site.timeZone.map(SiteRules.zone) ?? TimeZone.current
        let today = SiteTime(now, in: zone)
        var rules: [String: String] = [:]
        var schedules: [String: String] = [:]
        var admitted: [String: Bool] = [:]
        var entries: [CredentialReplica.Entry] = []
        for record in records {
            let allowed =
                admitted[record.name]
                ?? {
                    let rule = site.access.rule(site.rules[record.name] ?? AccessRule(), at: terminal)
                    let open = !rule.disabled && (rule.doors?.contains(terminal) ?? true) && !(rule.validUntil.map { today >= $0.end } ?? false)
                    if open && !rule.isDefault {
                        rules[record.name] = rule.text
                        for schedule in rule.scheduleNames { schedules[schedule] = site.schedules[schedule] }
                    }
                    admitted[record.name] = open
                    return open
                }()
            if allowed {
                entries.append(CredentialReplica.Entry(user: record.name, kind: record.kind, hash: record.pinHash, tag: tags[record.pinHash.description]))
            }
        }
        let unlock = site.unlockSchedules[terminal]
        if let unlock { schedules[unlock.schedule] = site.schedules[unlock.schedule] }
        let cardAndPIN = site.cardAndPIN[terminal]
        if let schedule = cardAndPIN?.schedule { schedules[schedule] = site.schedules[schedule] }
        // Holidays from yesterday on (a door's clock may be a day behind the server's), only
        // while someone here, or the door's unlock schedule, has a schedule they could
        // change; with the schedules they name.
        var holidays: [String: String] = [:]
        if !schedules.isEmpty {
            for holiday in site.holidays where holiday.day.end.localSeconds > today.localSeconds - 86_400 {
                holidays[holiday.day.description] = holiday.rule
                if let schedule = holiday.schedule { schedules[schedule] = site.schedules[schedule] }
            }
        }
        let mode = site.modes.setting(at: terminal)
        guard let tagKey else {
            return CredentialReplica(
                terminalID: terminal, version: version, issuedAt: now, timeZone: site.timeZone, schedules: schedules, rules: rules,
                entries: entries.map { CredentialReplica.Entry(user: $0.user, kind: $0.kind, hash: $0.hash) }, holidays: holidays, mode: mode,
                modeCheck: site.modeCheck, unlock: unlock, cardAndPIN: cardAndPIN, mark: mark)
        }
        let bits = ReplicaTagKey.bits(forEntries: entries.filter { $0.tag != nil }.count)
        return CredentialReplica(
            terminalID: terminal, version: version, issuedAt: now, timeZone: site.timeZone, schedules: schedules, rules: rules,
            entries: entries.map {
                CredentialReplica.Entry(user: $0.user, kind: $0.kind, hash: $0.hash, tag: $0.tag.map { ReplicaTagKey.cut($0, bits: bits) })
            },
            tagKey: tagKey.raw, tagBits: bits, holidays: holidays, mode: mode, modeCheck: site.modeCheck, unlock: unlock, cardAndPIN: cardAndPIN,
            mark: mark)
    }
}
