import Foundation
import KeypadCore
import KeypadVerifier

/// The reference verifier's decisions, independent of the HTTP server that carries them
/// (a ``VerifierDecision``): signature, replay, body, per-source limits on refused
/// requests, per-terminal lockout, then PIN hashes, TOTP codes (RFC 6238, +-1 step, each
/// code once) and single-use codes; every decision is audited without the value. The state
/// these read and change is in a ``VerifierStore``: files (one instance) or PostgreSQL
/// (several instances); a store error answers `unavailable`, never a grant.
///
/// The checks are cheap and run on the actor; the slow part, the PIN hashes, runs off it,
/// so attempts from different terminals are hashed on all cores at once. Attempts from one
/// terminal are decided one at a time (across instances, by the store), so its lockout
/// count is exact.
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

        public init(
            contentType: String?, webhookID: String?, webhookTimestamp: String?, webhookSignature: String?,
            body: [UInt8], source: String? = nil
        ) {
            self.contentType = contentType
            self.webhookID = webhookID
            self.webhookTimestamp = webhookTimestamp
            self.webhookSignature = webhookSignature
            self.body = body
            self.source = source
        }
    }

    public nonisolated let settings: Settings
    /// Users, replay cache, lockout counters, TOTP steps, one-time codes and audit.
    private let store: any VerifierStore
    private let clock: @Sendable () -> Date
    private var rejections: RejectionTally
    /// Attempts waiting for their terminal's previous one to be decided.
    private var waitingByTerminal: [String: [CheckedContinuation<Void, Never>]] = [:]

    public init(settings: Settings, store: any VerifierStore, clock: @escaping @Sendable () -> Date = Date.init) {
        self.settings = settings
        self.store = store
        self.clock = clock
        rejections = RejectionTally(interval: settings.rejectionInterval, limit: settings.rejectionLimit)
    }

    /// A fixed list of users, state in files (`replays` nil keeps the replay cache in memory only, for tests).
    public init(
        settings: Settings, users: UsersFile, codes: OneTimeCodeStore?, audit: AuditLog?,
        replays: ReplayLog? = nil, clock: @escaping @Sendable () -> Date = Date.init
    ) {
        self.init(settings: settings, store: FileVerifierStore(users: { users }, codes: codes, audit: audit, replays: replays), clock: clock)
    }

    /// Users from a file that is read again when it changes (`kioskpad verifier user`).
    public init(
        settings: Settings, usersFile: UsersFileWatcher, codes: OneTimeCodeStore?, audit: AuditLog?,
        replays: ReplayLog? = nil, clock: @escaping @Sendable () -> Date = Date.init
    ) {
        let store = FileVerifierStore(users: { try usersFile.current() }, codes: codes, audit: audit, replays: replays)
        self.init(settings: settings, store: store, clock: clock)
    }

    /// Nil when the store can be used now, else why not (for `/healthz`).
    public nonisolated func healthProblem() async -> String? {
        await store.healthProblem()
    }

    public func handle(_ request: Incoming) async -> VerifierDecision {
        let now = clock()
        let source = request.source ?? "unknown"
        await flushRejections(now: now)
        if rejections.isLimited(source, now: now) {
            return .throttled
        }
        guard ReferenceVerifier.isJSON(request.contentType) else {
            return await refuse(.malformed, "content-type must be application/json", request, source: source, now: now)
        }
        guard request.body.count <= settings.maxBodyBytes else {
            return await refuse(.malformed, "body larger than \(settings.maxBodyBytes) bytes", request, source: source, now: now)
        }
        if let secret = settings.secret {
            if let failure = WebhookSignature.verify(
                id: request.webhookID, timestamp: request.webhookTimestamp, signature: request.webhookSignature,
                body: request.body, secret: secret, now: now)
            {
                return await refuse(.unauthenticated, failure.description, request, source: source, now: now)
            }
            let id = request.webhookID ?? ""
            guard id.utf8.count <= 128, !id.contains(where: \.isNewline) else {
                return await refuse(.malformed, "webhook-id longer than 128 characters", request, source: source, now: now)
            }
            do {
                guard try await store.claimRequestID(id, now: now) else {
                    return await refuse(.replayed, "webhook-id was already used (replay)", request, source: source, now: now)
                }
            } catch {
                return await unavailable("replay cache: \(error)")
            }
        }
        let decoded: VerificationRequestBody.Decoded
        do {
            decoded = try VerificationRequestBody.decode(request.body)
        } catch {
            return await refuse(.malformed, "\(error)", request, source: source, now: now)
        }
        // One attempt per terminal at a time in this instance; the store makes it exclusive
        // across instances, so the lockout count stays exact.
        await acquire(terminal: decoded.terminalID)
        defer { release(terminal: decoded.terminalID) }
        let moment = Duration.seconds(now.timeIntervalSince1970)
        let outcome: Outcome
        do {
            outcome = try await store.withLockout(terminal: decoded.terminalID, policy: settings.lockout) { [settings] tracker, store in
                if tracker.isLocked(at: moment) { return .locked }
                let matched = try await ReferenceVerifier.decide(decoded, now: now, store: store, lookup: settings.lookupKey)
                if matched != nil {
                    tracker.recordGrant()
                } else {
                    _ = tracker.recordDenial(at: moment)
                }
                return .decided(user: matched?.name, duress: matched?.duress ?? false)
            }
        } catch {
            await record(decoded, decision: "error", reason: "\(error)", user: nil)
            return await unavailable("\(error)")
        }
        switch outcome {
        case .locked:
            await record(decoded, decision: "denied", reason: "terminal locked out", user: nil)
            return .denied("Locked out")
        case .decided(let user?, let duress):
            await record(decoded, decision: "granted", reason: duress ? "duress match" : "match", user: user)
            // A name that is not a valid identifier (an old codes file) is not sent.
            return .granted(unlockSeconds: settings.unlockSeconds, user: Identifier.isValid(user) ? user : nil, duress: duress)
        case .decided(nil, _):
            await record(decoded, decision: "denied", reason: "no match", user: nil)
            return .denied()
        }
    }

    /// What one attempt came to, inside its terminal's lockout.
    private enum Outcome: Sendable {
        case locked
        case decided(user: String?, duress: Bool)
    }

    /// Waits until no other attempt of `terminal` is being decided (arrival order).
    private func acquire(terminal: String) async {
        guard waitingByTerminal[terminal] != nil else {
            waitingByTerminal[terminal] = []
            return
        }
        await withCheckedContinuation { continuation in
            waitingByTerminal[terminal, default: []].append(continuation)
        }
    }

    /// Lets the next attempt of `terminal` in, or marks the terminal idle.
    private func release(terminal: String) {
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

    /// The user the value belongs to and whether it was their duress PIN, or nil. Runs off
    /// the actor, so the slow hashes of different terminals' attempts run on all cores. Every
    /// candidate line's hash is checked (no early exit): each user's, or with a lookup key
    /// the lines tagged for the value and the untagged ones.
    private nonisolated static func decide(
        _ request: VerificationRequestBody.Decoded, now: Date, store: any VerifierStore, lookup: LookupKey?
    ) async throws -> (name: String, duress: Bool)? {
        switch request.kind {
        case .pin, .card:
            let tagged = lookup.map { (tag: $0.tag(request.value, kind: request.kind), keyID: $0.id) }
            let users = try await store.users(lookupTag: tagged?.tag, keyID: tagged?.keyID)
            return users.match(request.value, kind: request.kind, tagged: tagged)
        case .code:
            if let user = try await matchTOTP(request.value, store: store, now: now) { return (user, false) }
            guard let user = try await store.redeemCode(request.value, now: now) else { return nil }
            // A code issued to a user removed since then is used up, and opens nothing.
            return try await store.hasUser(user) ? (user, false) : nil
        }
    }

    /// The user whose authenticator shows `value` now (+-1 step), each code once.
    private nonisolated static func matchTOTP(_ value: SecretDigits, store: any VerifierStore, now: Date) async throws -> String? {
        let seconds = Int(now.timeIntervalSince1970)
        let users = try await store.totpUsers()
        let matches: [(name: String, step: Int)] = value.withASCIIBytes { candidate in
            users.compactMap { user in
                guard let secret = user.totpSecret, let step = TOTP(secret: secret).matchingStep(Array(candidate), at: seconds) else { return nil }
                return (user.name, step)
            }
        }
        for match in matches where try await store.claimTOTPStep(user: match.name, step: match.step) {
            return match.name
        }
        return nil
    }

    private func refuse(_ refusal: VerifierDecision.Refusal, _ reason: String, _ request: Incoming, source: String, now: Date) async -> VerifierDecision {
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

    private func unavailable(_ reason: String) async -> VerifierDecision {
        try? await store.audit([("time", timestamp(clock())), ("decision", "error"), ("reason", reason)])
        return .unavailable
    }

    private func record(_ request: VerificationRequestBody.Decoded, decision: String, reason: String, user: String?) async {
        var fields = [
            ("time", timestamp(clock())), ("terminal_id", request.terminalID), ("attempt_id", request.attemptID),
            ("kind", request.kind.rawValue), ("digits", String(request.value.count)), ("decision", decision), ("reason", reason),
        ]
        if let user { fields.append(("user", user)) }
        try? await store.audit(fields)
    }

    private func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
