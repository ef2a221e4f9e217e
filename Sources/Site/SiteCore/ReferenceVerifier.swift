import Foundation
import KioskPadAccess
import KioskPadCore
import KioskPadStorage

/// The reference verifier's decisions, independent of the HTTP server that carries them
/// (a ``VerifierDecision``): signature, replay, body, per-source limits on refused
/// requests, per-terminal lockout, then PIN hashes, TOTP codes (RFC 6238, +-1 step, each
/// code once) and single-use codes. The state these read and change is in a
/// ``VerifierStore``: SQLite (one instance) or PostgreSQL (several instances). A decision's
/// audit record commits with the state it changes, before the answer is sent; a store
/// error, the audit's included, answers `unavailable`, never a grant.
///
/// The checks are cheap and run on the actor; the slow part, the PIN hashes, runs off it
/// and holds no lock, so attempts from different terminals are hashed on all cores at once.
/// Attempts from one terminal are decided one at a time (across instances, by the store),
/// so its lockout count is exact.
public actor ReferenceVerifier {
    public struct Settings: Sendable {
        public var secret: WebhookSecret?
        public var unlockSeconds: Int?
        public var lockout: LockoutPolicy
        public var maxBodyBytes: Int
        /// Refused requests a source may make per ``rejectionInterval`` before it is throttled.
        public var rejectionLimit: Int
        public var rejectionInterval: TimeInterval
        /// With a key, only the users-file lines tagged for the value are hashed (O(1) per attempt).
        public var lookupKey: LookupKey?

        public init(
            secret: WebhookSecret?, unlockSeconds: Int? = nil, lockout: LockoutPolicy = LockoutPolicy(),
            maxBodyBytes: Int = 16_384, rejectionLimit: Int = 20, rejectionInterval: TimeInterval = 10,
            lookupKey: LookupKey? = nil
        ) {
            self.lookupKey = lookupKey
            self.secret = secret
            self.unlockSeconds = unlockSeconds
            self.lockout = lockout
            self.maxBodyBytes = maxBodyBytes
            self.rejectionLimit = rejectionLimit
            self.rejectionInterval = rejectionInterval
        }
    }

    /// The request parts the decision needs.
    public struct Incoming: Sendable {
        public var contentType: String?
        public var webhookID: String?
        public var webhookTimestamp: String?
        public var webhookSignature: String?
        public var body: [UInt8]
        /// The peer's address, for per-source limits (nil: counted as "unknown").
        public var source: String?
        /// The `kioskpad-terminal` header: the door the request says it comes from, so the key
        /// is chosen and the signature checked before the body is parsed (nil: an older
        /// door, whose body is parsed for its `terminal_id` instead).
        public var terminal: String?
        /// The `kioskpad-wait-ms` header (``AnswerWait``): how long the door waits for this
        /// answer from when it sent the request; nil: an older door, decided as before.
        public var waitMilliseconds: Int?
        /// When the request arrived (its body read): the door's wait is counted from here.
        public var arrived: ContinuousClock.Instant

        public init(
            contentType: String?, webhookID: String?, webhookTimestamp: String?, webhookSignature: String?,
            body: [UInt8], source: String? = nil, terminal: String? = nil, waitMilliseconds: Int? = nil,
            arrived: ContinuousClock.Instant = .now
        ) {
            self.contentType = contentType
            self.webhookID = webhookID
            self.webhookTimestamp = webhookTimestamp
            self.webhookSignature = webhookSignature
            self.body = body
            self.source = source
            self.terminal = terminal
            self.waitMilliseconds = waitMilliseconds
            self.arrived = arrived
        }

        /// Until when a decision can still reach the door (``AnswerWait/usable(_:)``); nil: no
        /// wait was given.
        public var answerBy: ContinuousClock.Instant? {
            waitMilliseconds.map { arrived + AnswerWait.usable($0) }
        }
    }

    public nonisolated let settings: Settings
    /// Users, replay cache, lockout counters, TOTP steps, one-time codes and audit.
    let store: any VerifierStore
    let clock: @Sendable () -> Date
    private var rejections: RejectionTally
    /// Schedules and zones compiled once per spec.
    private let rules = AccessCompilationCache()
    /// Attempts waiting for their terminal's previous one to be decided.
    private var waitingByTerminal: [String: [CheckedContinuation<Void, Never>]] = [:]

    public init(settings: Settings, store: any VerifierStore, clock: @escaping @Sendable () -> Date = Date.init) {
        self.settings = settings
        self.store = store
        self.clock = clock
        rejections = RejectionTally(interval: settings.rejectionInterval, limit: settings.rejectionLimit)
    }

    /// Whether `source` may be served by a door endpoint now; false while it is over its
    /// rejection limit (answer 429). `/v1/events` and `/v1/credentials` share `/verify`'s
    /// per-address tally: a source refused on one is throttled on all.
    public func admits(_ source: String) async -> Bool {
        let now = clock()
        await flushRejections(now: now)
        return !rejections.isLimited(source, now: now)
    }

    /// A request to another door endpoint refused (unsigned, badly signed, malformed):
    /// counted with `/verify`'s, the first from its address in an interval audited on its
    /// own, the rest in one aggregated record.
    public func noteRefused(_ refusal: VerifierDecision.Refusal, _ reason: String, endpoint: String, _ request: Incoming) async {
        _ = await refuse(refusal, "\(endpoint): \(reason)", request, source: request.source ?? "unknown", now: clock())
    }

    /// How long a throttled address waits: the rest of its rejection interval at most.
    public nonisolated var retryAfterSeconds: Int { Int(settings.rejectionInterval.rounded(.up)) }

    /// Nil when the store can be used now, else why not (for `/healthz`).
    public nonisolated func healthProblem() async -> String? {
        await store.healthProblem()
    }

    /// What the checks every door request to `/verify` or `/v1/enrol` passes first came to:
    /// refused (the decision to answer, audited), or admitted.
    public enum Admission: Sendable {
        case refused(VerifierDecision)
        case admitted(AdmittedDoorRequest)
    }

    /// The throttle of the request's address, then the gate every door endpoint shares
    /// (``DoorGate``: content type, size, claimed door, signature, webhook-id).
    public func admit(_ request: Incoming) async -> Admission {
        let now = clock()
        let source = request.source ?? "unknown"
        await flushRejections(now: now)
        if rejections.isLimited(source, now: now) {
            return .refused(.throttled)
        }
        let rules = DoorGate.Rules(unsigned: nil, maxBody: settings.maxBodyBytes, claimsWebhookID: true, inBody: DoorGate.objectTerminal)
        switch await DoorGate.admit(request, rules: rules, keys: DoorKeys(store: store, siteSecret: settings.secret), now: now) {
        case .success(let admitted):
            return .admitted(admitted)
        case .failure(let refused):
            guard case .refused(let refusal, let reason) = refused.outcome else { return .refused(.unavailable) }
            return .refused(await refuse(refusal, reason, request, source: source, now: now))
        }
    }

    /// An attempt, admitted and decided (``admit(_:)`` then ``decide(_:)``).
    public func handle(_ request: Incoming) async -> VerifierDecision {
        switch await admit(request) {
        case .refused(let decision): return decision
        case .admitted(let admitted): return await decide(admitted)
        }
    }

    /// An admitted attempt decided: its body held to the schema, then the lockout, the hashes
    /// and the claims, committed with the audit record.
    public func decide(_ admitted: AdmittedDoorRequest) async -> VerifierDecision {
        let request = admitted.incoming
        let now = clock()
        let source = request.source ?? "unknown"
        let (claimedTerminal, requestID) = (admitted.terminal, admitted.requestID)
        let decoded: VerificationRequestBody.Decoded
        do {
            decoded = try VerificationRequestBody.decode(admitted.body)
        } catch {
            return await refuse(.malformed, "\(error)", request, source: source, now: now)
        }
        guard decoded.terminalID == claimedTerminal else {
            return await refuse(.malformed, ClaimedTerminal.mismatch(body: decoded.terminalID, claimed: claimedTerminal), request, source: source, now: now)
        }
        // One attempt per terminal at a time in this instance; the store makes it exclusive
        // across instances, so the lockout count stays exact.
        await acquire(terminal: decoded.terminalID)
        defer { release(terminal: decoded.terminalID) }
        let moment = Duration.seconds(now.timeIntervalSince1970)
        let decision: VerifierDecision
        do {
            let policy = settings.lockout
            // A locked terminal's attempt is not hashed; the slow part runs before the
            // transaction, which then only makes the claims the hashes chose.
            let lockedOnArrival = try await store.lockout(terminal: decoded.terminalID, policy: policy).isLocked(at: moment)
            let rules = self.rules
            // Past the door's wait (its turn came too late), before the hashes and after them.
            let answerBy = request.answerBy
            try TooLate.check(answerBy)
            let candidate =
                lockedOnArrival ? .none : try await ReferenceVerifier.candidate(decoded, now: now, store: store, lookup: settings.lookupKey, rules: rules)
            try TooLate.check(answerBy)
            let time = timestamp(clock())
            let unlockSeconds = settings.unlockSeconds
            decision = try await store.commitAttempt(terminal: decoded.terminalID, policy: policy) { [requestID] tracker, transaction in
                // One commit per attempt: the replay cache's row is written with the rest.
                if let requestID, try await !transaction.claimRequestID(requestID, now: now) { throw Replayed() }
                let outcome: Outcome
                if lockedOnArrival || tracker.isLocked(at: moment) {
                    outcome = .locked
                } else {
                    outcome = try await candidate.claim(in: transaction, door: decoded.terminalID, now: now, rules: rules)
                    switch outcome {
                    case .decided(user: _?, _), .visitor(_, nil): tracker.recordGrant()
                    // A card read to be learned is no guess, whatever came of it.
                    case .cardLearning: break
                    case .decided(user: nil, _): _ = tracker.recordDenial(at: moment)
                    // The PIN was right: the rules' refusal does not count toward the lockout;
                    // nor does a single factor at a card-and-PIN door (nothing was hashed).
                    case .refused, .locked, .secondFactorRequired, .visitor: break
                    }
                }
                try await transaction.audit(ReferenceVerifier.auditRecord(decoded, outcome, time: time))
                let decision = ReferenceVerifier.decision(outcome, unlockSeconds: unlockSeconds)
                // Kept with the request's id: a retry whose first answer was lost gets it again.
                if let requestID, let kept = KeptAnswer(decision, terminal: decoded.terminalID, attemptID: decoded.attemptID, request: request) {
                    try await transaction.keepAnswer(requestID: requestID, kept)
                }
                if case .refused(let user, true, _) = outcome {
                    // The silent alarm is raised even though the rules kept the door shut.
                    try await transaction.audit(
                        ReferenceVerifier.attemptFields(decoded, time: time) + [("event", DoorRecordType.duress.rawValue), ("user", user)])
                }
                // The last step before the commit: past the door's wait, nothing is kept.
                try TooLate.check(answerBy)
                return decision
            }
        } catch let late as TooLate {
            try? await store.audit(
                ReferenceVerifier.attemptFields(decoded, time: timestamp(clock())) + [("decision", "error"), ("reason", late.reason(request))])
            return .unavailable
        } catch is Replayed {
            return await repeatOrRefuse(
                terminal: decoded.terminalID, attemptID: decoded.attemptID, kind: decoded.kind.rawValue, requestID: requestID, request, source: source, now: now
            )
        } catch {
            try? await store.audit(ReferenceVerifier.attemptFields(decoded, time: timestamp(clock())) + [("decision", "error"), ("reason", "\(error)")])
            return .unavailable
        }
        return decision
    }

    /// A request whose id was claimed before: when it is the same request of the same door,
    /// byte for byte (a retry whose answer was lost), the answer kept for it, audited as
    /// repeated; anything else (another body under the same id) is refused as a replay.
    func repeatOrRefuse(
        terminal: String, attemptID: String, kind: String, requestID: String?, _ request: Incoming, source: String, now: Date
    ) async -> VerifierDecision {
        if let requestID, let kept = try? await store.keptAnswer(requestID: requestID, now: now),
            let decision = kept.decision(terminal: terminal, attemptID: attemptID, request: request)
        {
            try? await store.audit([
                ("time", timestamp(now)), ("terminal_id", terminal), ("attempt_id", attemptID), ("kind", kind), ("decision", "repeated"),
                ("reason", "a retry of a decided attempt"),
            ])
            return .repeated(decision)
        }
        return await refuse(.replayed, "webhook-id was already used (replay)", request, source: source, now: now)
    }

    /// What the door is told of `outcome`.
    private nonisolated static func decision(_ outcome: Outcome, unlockSeconds: Int?) -> VerifierDecision {
        switch outcome {
        case .locked:
            return .lockedOut
        case .decided(let user?, let duress):
            // A name that is not a valid identifier (an old codes file) is not sent.
            return .granted(unlockSeconds: unlockSeconds, user: Identifier.isValid(user) ? user : nil, duress: duress)
        case .cardLearning(_, nil):
            return .cardEnrolled
        case .cardLearning:
            return .denied()
        case .visitor(_, nil):
            // A visitor's name is the site's to know; the door shows a plain grant.
            return .granted(unlockSeconds: unlockSeconds, user: nil, duress: false)
        case .decided(nil, _), .refused, .visitor:
            // A refusal by the rules is a plain denial on the wire: the keypad never says why.
            return .denied()
        case .secondFactorRequired:
            return .secondFactorRequired
        }
    }

    /// A request whose webhook-id was seen within the replay window: nothing it did is kept.
    struct Replayed: Error {}

    /// What one attempt came to, inside its terminal's lockout.
    private enum Outcome: Sendable {
        case locked
        case decided(user: String?, duress: Bool)
        /// The credential matched `user`, whose access rules refused it.
        case refused(user: String, duress: Bool, DenialReason)
        /// A single factor at a door that asks for a card and a PIN now.
        case secondFactorRequired
        /// A visitor pass matched: used (no refusal), or refused by its rule or its host.
        case visitor(IssuedVisitorPass, DenialReason?)
        /// The door was armed to learn a card for `user`: learned (`owner` nil), or refused
        /// because the card is `owner`'s.
        case cardLearning(user: String, owner: String?)
    }

    /// Waits until no other attempt of `terminal` is being decided (arrival order).
    func acquire(terminal: String) async {
        guard waitingByTerminal[terminal] != nil else {
            waitingByTerminal[terminal] = []
            return
        }
        await withCheckedContinuation { continuation in
            waitingByTerminal[terminal, default: []].append(continuation)
        }
    }

    /// Lets the next attempt of `terminal` in, or marks the terminal idle.
    func release(terminal: String) {
        guard var queue = waitingByTerminal[terminal], !queue.isEmpty else {
            waitingByTerminal[terminal] = nil
            return
        }
        let next = queue.removeFirst()
        waitingByTerminal[terminal] = queue
        next.resume()
    }

    /// `application/json`, with optional parameters (`; charset=utf-8`), and nothing else.
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first ?? ""
        return mediaType.trimmingCharacters(in: .whitespaces).lowercased() == "application/json"
    }

    /// What the hashes say an attempt may claim. The store is read here; the hashes run on
    /// ``HashingPool``'s door lane (threads of its own, ahead of console logins), so the slow
    /// part never holds a cooperative thread and different terminals' attempts use every
    /// core. Every candidate line's hash is checked (no early exit): each user's, or with a
    /// lookup key the lines tagged for the value and the untagged ones; every live code's.
    ///
    /// At a door that asks for a card and a PIN now, any other kind is refused before a hash
    /// is computed; `card_pin` hashes the card, then its holder's PIN lines.
    private nonisolated static func candidate(
        _ request: VerificationRequestBody.Decoded, now: Date, store: any VerifierStore, lookup: LookupKey?, rules: AccessCompilationCache
    ) async throws -> Candidate {
        let value = request.value
        if request.kind != .cardPIN, let door = try await store.cardAndPIN(door: request.terminalID, at: now),
            rules.secondFactorRequired(door, at: now)
        {
            return .secondFactorRequired
        }
        switch request.kind {
        case .enrol:
            return .credential(nil)  // the body's decoder refuses it: a PIN is chosen at /v1/enrol
        case .cardPIN:
            guard let pin = request.pin else { return .credential(nil) }
            let tagged = lookup.map { (tag: $0.tag(value, kind: .card), keyID: $0.id) }
            let cards = try await store.users(lookupTag: tagged?.tag, keyID: tagged?.keyID)
            let holder = try await HashingPool.shared.run(.door) { cards.match(value, kind: .card, tagged: tagged)?.name }
            // The holder's own lines; no holder: a decoy hash, so a wrong card takes as long.
            let own = holder == nil ? cards : try await store.lines(of: holder ?? "")
            return .credential(try await HashingPool.shared.run(.door) { own.match(pin: pin, of: holder ?? "") })
        case .card:
            let tagged = lookup.map { (tag: $0.tag(value, kind: .card), keyID: $0.id) }
            let users = try await store.users(lookupTag: tagged?.tag, keyID: tagged?.keyID)
            let matched = try await HashingPool.shared.run(.door) { users.match(value, kind: .card, tagged: tagged) }
            guard matched == nil else { return .card(matched, unknown: nil) }
            // A card nobody holds: hashed as a card line would be, to be learned or claimed.
            let replicaTag = try await store.replicaTagKey()?.tag(value, kind: .card)
            let hash = try await HashingPool.shared.makeHash(value, lane: .door)
            return .card(nil, unknown: UnknownCardHash(hash: hash, lookupTag: tagged?.tag, replicaTag: replicaTag, digits: value.count))
        case .pin:
            let kind = request.kind
            let tagged = lookup.map { (tag: $0.tag(value, kind: kind), keyID: $0.id) }
            let users = try await store.users(lookupTag: tagged?.tag, keyID: tagged?.keyID)
            return .credential(try await HashingPool.shared.run(.door) { users.match(value, kind: kind, tagged: tagged) })
        case .code:
            let seconds = Int(now.timeIntervalSince1970)
            let totpUsers = try await store.totpUsers()
            // With a lookup key, only the codes and passes of the typed code's tag (and any
            // untagged ones) are hashed: one PBKDF2 whatever the number of live passes.
            let tag = lookup?.codeTag(value)
            let codes = try await store.liveCodes(now: now, lookupTag: tag)
            let passes = try await store.liveVisitorPasses(now: now, lookupTag: tag)
            return try await HashingPool.shared.run(.door) {
                let steps: [(name: String, step: Int)] = value.withASCIIBytes { candidate in
                    totpUsers.compactMap { user in
                        guard let secret = user.totpSecret, let step = TOTP(secret: secret).matchingStep(Array(candidate), at: seconds) else { return nil }
                        return (user.name, step)
                    }
                }
                let (issued, pass) = OneTimeCode.match(value, among: codes, passes: passes)
                return .code(totpSteps: steps, issued: issued, pass: pass)
            }
        }
    }

    /// What the hashes matched, to be claimed in the attempt's transaction.
    private enum Candidate: Sendable {
        case none
        case secondFactorRequired
        case credential((name: String, duress: Bool)?)
        case code(totpSteps: [(name: String, step: Int)], issued: IssuedCode?, pass: IssuedVisitorPass?)
        /// A card: its holder, or (nobody's) the line it would become.
        case card((name: String, duress: Bool)?, unknown: UnknownCardHash?)

        /// What it comes to at `door`, after claiming what a grant uses: a TOTP step (each
        /// code once) or a one-time code. A match that the user's rules refuse claims
        /// nothing (a code for another door is not used up). A one-time code whose user was
        /// removed since is used up and opens nothing. A visitor pass is tried after the
        /// user's codes; its use is counted only when it opens the door.
        func claim(in transaction: any AttemptTransaction, door: String, now: Date, rules: AccessCompilationCache) async throws -> Outcome {
            let noMatch = Outcome.decided(user: nil, duress: false)
            switch self {
            case .none, .credential(nil):
                return noMatch
            case .secondFactorRequired:
                return .secondFactorRequired
            case .card(let matched, let unknown):
                // A door armed to learn a card takes the next one read, whoever's it is.
                if let learner = try await transaction.cardLearner(door: door, now: now) {
                    if let matched {
                        try await transaction.finishCardLearning(door: door, result: CardLearning.enrolledTo(matched.name), now: now)
                        return .cardLearning(user: learner, owner: matched.name)
                    }
                    if let unknown, try await transaction.addCard(user: learner, unknown) {
                        try await transaction.finishCardLearning(door: door, result: CardLearning.learned, now: now)
                        return .cardLearning(user: learner, owner: nil)
                    }
                }
                if let matched { return try await Candidate.credential(matched).claim(in: transaction, door: door, now: now, rules: rules) }
                if let unknown { try await transaction.noteUnknownCard(door: door, unknown, now: now) }
                return noMatch
            case .credential(let matched?):
                guard let access = try await transaction.access(user: matched.name, door: door, at: now) else { return noMatch }
                if let refusal = rules.refusal(access, door: door, at: now) { return .refused(user: matched.name, duress: matched.duress, refusal) }
                return .decided(user: matched.name, duress: matched.duress)
            case .code(let steps, let issued, let pass):
                var refused: Outcome?
                for match in steps {
                    guard let access = try await transaction.access(user: match.name, door: door, at: now) else { continue }
                    if let refusal = rules.refusal(access, door: door, at: now) {
                        refused = refused ?? .refused(user: match.name, duress: false, refusal)
                    } else if try await transaction.claimTOTPStep(user: match.name, step: match.step) {
                        return .decided(user: match.name, duress: false)
                    }
                }
                guard let issued else {
                    guard let pass, refused == nil else { return refused ?? noMatch }
                    return try await Self.claim(pass, in: transaction, door: door, now: now, rules: rules)
                }
                if let only = issued.door, only != door { return .refused(user: issued.user, duress: false, .notPermittedHere) }
                guard let access = try await transaction.access(user: issued.user, door: door, at: now) else {
                    _ = try await transaction.useCode(id: issued.id, now: now)
                    return noMatch
                }
                if let refusal = rules.refusal(access, door: door, at: now) { return .refused(user: issued.user, duress: false, refusal) }
                guard try await transaction.useCode(id: issued.id, now: now) else { return refused ?? noMatch }
                return .decided(user: issued.user, duress: false)
            }
        }

        /// Pass `pass` at `door`: its host a user not disabled, its rule's doors, levels,
        /// window and schedule as a user's, the door's mode; then one use counted.
        private static func claim(
            _ pass: IssuedVisitorPass, in transaction: any AttemptTransaction, door: String, now: Date, rules: AccessCompilationCache
        ) async throws -> Outcome {
            let (access, hostActive) = try await transaction.access(pass: pass, door: door, at: now)
            guard hostActive else { return .visitor(pass, .disabled) }
            if let refusal = rules.refusal(access, door: door, at: now) { return .visitor(pass, refusal) }
            guard try await transaction.useVisitorPass(id: pass.id, door: door, now: now) else { return .visitor(pass, .usedUp) }
            return .visitor(pass, nil)
        }
    }

    /// The audit record of a decided attempt: who, when, what kind, how many digits, what
    /// was decided and why; never the value.
    private nonisolated static func auditRecord(_ request: VerificationRequestBody.Decoded, _ outcome: Outcome, time: String) -> [(String, String)] {
        var fields = attemptFields(request, time: time)
        switch outcome {
        case .locked:
            fields += [("decision", Decision.denied.rawValue), ("reason", "terminal locked out")]
        case .decided(let user?, let duress):
            fields += [("decision", Decision.granted.rawValue), ("reason", duress ? "duress match" : "match"), ("user", user)]
        case .decided(nil, _):
            fields += [("decision", Decision.denied.rawValue), ("reason", "no match")]
        case .secondFactorRequired:
            fields += [("decision", Decision.denied.rawValue), ("reason", DenialReason.secondFactorRequired.rawValue)]
        case .refused(let user, let duress, let refusal):
            // A duress PIN outside its rules is denied, and still audited as duress.
            fields += [("decision", Decision.denied.rawValue), ("reason", refusal.rawValue), ("user", user)] + (duress ? [("duress", "true")] : [])
        case .cardLearning(let user, let owner):
            fields += [
                ("decision", Decision.denied.rawValue), ("reason", owner == nil ? DenialReason.cardEnrolled.rawValue : "card_enrolled_to_another"),
                ("user", user),
            ]
            if let owner { fields.append(("owner", owner)) }
        case .visitor(let pass, let refusal):
            fields += [
                ("decision", (refusal == nil ? Decision.granted : .denied).rawValue), ("reason", refusal?.rawValue ?? "visitor_pass"),
                ("visitor", pass.visitor),
                ("host", pass.host), ("pass_id", String(pass.id)),
            ]
        }
        return fields
    }

    nonisolated static func attemptFields(_ request: VerificationRequestBody.Decoded, time: String) -> [(String, String)] {
        [
            ("time", time), ("terminal_id", request.terminalID), ("attempt_id", request.attemptID),
            ("kind", request.kind.rawValue), ("digits", String(request.value.count)),
        ]
    }

    func refuse(_ refusal: VerifierDecision.Refusal, _ reason: String, _ request: Incoming, source: String, now: Date) async -> VerifierDecision {
        if rejections.note(source, refusal: refusal, now: now) {
            try? await store.audit([
                ("time", timestamp(now)), ("decision", "rejected"), ("refusal", refusal.rawValue), ("reason", reason),
                ("source", source), ("webhook_id", String((request.webhookID ?? "").prefix(64))),
            ])
        }
        return .refused(refusal, reason: reason)
    }

    /// One audit record per source whose rejection interval ended with more than one.
    private func flushRejections(now: Date) async {
        for summary in rejections.closeEnded(now: now) {
            let refusals = summary.refusals.sorted { $0.key < $1.key }.map { "\($0.key.rawValue):\($0.value)" }.joined(separator: ",")
            try? await store.audit([
                ("time", timestamp(now)), ("decision", "rejected"), ("source", summary.source),
                ("since", timestamp(summary.start)), ("count", String(summary.count)),
                ("throttled", String(summary.limited)), ("refusals", refusals),
            ])
        }
    }

    func timestamp(_ date: Date) -> String {
        UTCTimestamp.rfc3339(date, milliseconds: true)
    }
}
