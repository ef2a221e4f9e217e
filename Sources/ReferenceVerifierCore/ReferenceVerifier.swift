import Foundation
import KeypadCore
import KeypadVerifier

/// The reference verifier's decisions, independent of the HTTP server that carries them
/// (a ``VerifierDecision``): signature, replay (remembered across restarts by a
/// ``ReplayLog``), body, per-source limits on refused requests, per-terminal lockout, then
/// PIN hashes, TOTP codes (RFC 6238, +-1 step, each code once) and single-use codes; every
/// decision is appended to the audit log without the value.
///
/// The checks are cheap and run on the actor; the slow part, the PIN hashes, runs off it,
/// so attempts from different terminals are hashed on all cores at once. Attempts from one
/// terminal are decided one at a time, so its lockout count is exact.
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
    /// The users now: a fixed list, or the users file as it reads at this attempt.
    private let users: @Sendable () throws -> UsersFile
    private let codes: OneTimeCodeStore?
    private let audit: AuditLog?
    private let clock: @Sendable () -> Date
    private let replays: ReplayLog
    private var rejections: RejectionTally
    private var lockouts: [String: LockoutTracker] = [:]
    private var totpLastStep: [String: Int] = [:]
    /// Attempts waiting for their terminal's previous one to be decided.
    private var waitingByTerminal: [String: [CheckedContinuation<Void, Never>]] = [:]

    /// `replays` nil keeps the replay cache in memory only (tests).
    public init(
        settings: Settings, users: UsersFile, codes: OneTimeCodeStore?, audit: AuditLog?,
        replays: ReplayLog? = nil, clock: @escaping @Sendable () -> Date = Date.init
    ) {
        self.init(settings: settings, usersNow: { users }, codes: codes, audit: audit, replays: replays, clock: clock)
    }

    /// Users from a file that is read again when it changes (`kioskpad verifier user`).
    public init(
        settings: Settings, usersFile: UsersFileWatcher, codes: OneTimeCodeStore?, audit: AuditLog?,
        replays: ReplayLog? = nil, clock: @escaping @Sendable () -> Date = Date.init
    ) {
        self.init(settings: settings, usersNow: { try usersFile.current() }, codes: codes, audit: audit, replays: replays, clock: clock)
    }

    private init(
        settings: Settings, usersNow: @escaping @Sendable () throws -> UsersFile, codes: OneTimeCodeStore?, audit: AuditLog?,
        replays: ReplayLog?, clock: @escaping @Sendable () -> Date
    ) {
        self.settings = settings
        self.users = usersNow
        self.codes = codes
        self.audit = audit
        self.clock = clock
        self.replays = replays ?? ReplayLog()
        rejections = RejectionTally(interval: settings.rejectionInterval, limit: settings.rejectionLimit)
    }

    public func handle(_ request: Incoming) async -> VerifierDecision {
        let now = clock()
        let source = request.source ?? "unknown"
        flushRejections(now: now)
        if rejections.isLimited(source, now: now) {
            return .throttled
        }
        guard ReferenceVerifier.isJSON(request.contentType) else {
            return refuse(.malformed, "content-type must be application/json", request, source: source, now: now)
        }
        guard request.body.count <= settings.maxBodyBytes else {
            return refuse(.malformed, "body larger than \(settings.maxBodyBytes) bytes", request, source: source, now: now)
        }
        if let secret = settings.secret {
            if let failure = WebhookSignature.verify(
                id: request.webhookID, timestamp: request.webhookTimestamp, signature: request.webhookSignature,
                body: request.body, secret: secret, now: now)
            {
                return refuse(.unauthenticated, failure.description, request, source: source, now: now)
            }
            let id = request.webhookID ?? ""
            guard id.utf8.count <= 128, !id.contains(where: \.isNewline) else {
                return refuse(.malformed, "webhook-id longer than 128 characters", request, source: source, now: now)
            }
            do {
                guard try replays.insert(id, now: now) else {
                    return refuse(.replayed, "webhook-id was already used (replay)", request, source: source, now: now)
                }
            } catch {
                return unavailable("replay log: \(error)")
            }
        }
        let decoded: VerificationRequestBody.Decoded
        do {
            decoded = try VerificationRequestBody.decode(request.body)
        } catch {
            return refuse(.malformed, "\(error)", request, source: source, now: now)
        }
        // One attempt per terminal at a time: its lockout count stays exact.
        await acquire(terminal: decoded.terminalID)
        defer { release(terminal: decoded.terminalID) }
        let moment = Duration.seconds(now.timeIntervalSince1970)
        var tracker = lockouts[decoded.terminalID] ?? LockoutTracker(policy: settings.lockout)
        if tracker.isLocked(at: moment) {
            record(decoded, decision: "denied", reason: "terminal locked out", user: nil)
            return .denied("Locked out")
        }
        let matched: (name: String, duress: Bool)?
        do {
            matched = try await decide(decoded, now: now)
        } catch {
            record(decoded, decision: "error", reason: "\(error)", user: nil)
            return unavailable("\(error)")
        }
        let user = matched?.name
        tracker = lockouts[decoded.terminalID] ?? tracker
        if user != nil {
            tracker.recordGrant()
        } else {
            _ = tracker.recordDenial(at: moment)
        }
        lockouts[decoded.terminalID] = tracker
        let reason = matched == nil ? "no match" : matched?.duress == true ? "duress match" : "match"
        record(decoded, decision: user == nil ? "denied" : "granted", reason: reason, user: user)
        guard let matched else { return .denied() }
        // A name that is not a valid identifier (an old codes file) is not sent.
        return .granted(
            unlockSeconds: settings.unlockSeconds, user: Identifier.isValid(matched.name) ? matched.name : nil,
            duress: matched.duress)
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

    /// The user the value belongs to and whether it was their duress PIN, or nil. Every
    /// user's PIN (or, for a card, card) hash is checked (no early exit).
    private func decide(_ request: VerificationRequestBody.Decoded, now: Date) async throws -> (name: String, duress: Bool)? {
        let users = try users()
        switch request.kind {
        case .pin, .card:
            return await ReferenceVerifier.match(request.value, kind: request.kind, users: users, lookup: settings.lookupKey)
        case .code:
            if let user = matchTOTP(request.value, users: users, now: now) { return (user, false) }
            guard let codes, let user = try await ReferenceVerifier.redeem(request.value, in: codes) else { return nil }
            // A code issued to a user removed since then is used up, and opens nothing.
            return users.users.contains { $0.name == user } ? (user, false) : nil
        }
    }

    /// Off the actor: the slow hashes (of every user, or with a lookup key of the tagged
    /// candidates), in parallel with other terminals'.
    private nonisolated static func match(
        _ value: SecretDigits, kind: AttemptKind, users: UsersFile, lookup: LookupKey?
    ) async -> (name: String, duress: Bool)? {
        users.match(value, kind: kind, lookup: lookup)
    }

    /// Off the actor: the code store takes a file lock and hashes each live code.
    private nonisolated static func redeem(_ value: SecretDigits, in codes: OneTimeCodeStore) async throws -> String? {
        try codes.redeem(value)
    }

    private func matchTOTP(_ value: SecretDigits, users: UsersFile, now: Date) -> String? {
        let seconds = Int(now.timeIntervalSince1970)
        return value.withASCIIBytes { candidate in
            for user in users.users {
                guard let secret = user.totpSecret,
                    let step = TOTP(secret: secret).matchingStep(Array(candidate), at: seconds),
                    step > totpLastStep[user.name, default: Int.min] // each code once
                else { continue }
                totpLastStep[user.name] = step
                return user.name
            }
            return nil
        }
    }

    private func refuse(_ refusal: VerifierDecision.Refusal, _ reason: String, _ request: Incoming, source: String, now: Date) -> VerifierDecision {
        if rejections.note(source, refusal: refusal, now: now) {
            try? audit?.append([
                ("time", timestamp(now)), ("decision", "rejected"), ("refusal", refusal.rawValue), ("reason", reason),
                ("source", source), ("webhook_id", String((request.webhookID ?? "").prefix(64))),
            ])
        }
        return .refused(refusal, reason: reason)
    }

    /// One audit record per source whose rejection interval ended with more than one.
    private func flushRejections(now: Date) {
        for summary in rejections.closeEnded(now: now) {
            let refusals = summary.refusals.sorted { $0.key < $1.key }.map { "\($0.key.rawValue):\($0.value)" }.joined(separator: ",")
            try? audit?.append([
                ("time", timestamp(now)), ("decision", "rejected"), ("source", summary.source),
                ("since", timestamp(summary.start)), ("count", String(summary.count)),
                ("throttled", String(summary.limited)), ("refusals", refusals),
            ])
        }
    }

    private func unavailable(_ reason: String) -> VerifierDecision {
        try? audit?.append([("time", timestamp(clock())), ("decision", "error"), ("reason", reason)])
        return .unavailable
    }

    private func record(_ request: VerificationRequestBody.Decoded, decision: String, reason: String, user: String?) {
        var fields = [
            ("time", timestamp(clock())), ("terminal_id", request.terminalID), ("attempt_id", request.attemptID),
            ("kind", request.kind.rawValue), ("digits", String(request.value.count)), ("decision", decision), ("reason", reason),
        ]
        if let user { fields.append(("user", user)) }
        try? audit?.append(fields)
    }

    private func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
