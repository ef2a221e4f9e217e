import Foundation
import KeypadCore

/// The reference verifier's decisions, independent of the HTTP server that carries them:
/// signature (401), replay (409), body (400), per-terminal lockout, then PIN hashes, TOTP
/// codes (RFC 6238, +-1 step, each code once) and single-use codes; every decision is
/// appended to the audit log without the value.
public actor ReferenceVerifier {
    public struct Settings: Sendable {
        public var secret: WebhookSecret?
        public var unlockSeconds: Int?
        public var lockout: LockoutPolicy
        public var replayCapacity: Int
        public var maxBodyBytes: Int

        public init(
            secret: WebhookSecret?, unlockSeconds: Int? = nil, lockout: LockoutPolicy = LockoutPolicy(),
            replayCapacity: Int = 10_000, maxBodyBytes: Int = 16_384
        ) {
            self.secret = secret
            self.unlockSeconds = unlockSeconds
            self.lockout = lockout
            self.replayCapacity = replayCapacity
            self.maxBodyBytes = maxBodyBytes
        }
    }

    /// What the HTTP layer sends back.
    public struct Reply: Sendable, Equatable {
        public let status: Int
        public let body: [UInt8]
    }

    /// The request parts the decision needs.
    public struct Incoming: Sendable {
        public var contentType: String?
        public var webhookID: String?
        public var webhookTimestamp: String?
        public var webhookSignature: String?
        public var body: [UInt8]

        public init(contentType: String?, webhookID: String?, webhookTimestamp: String?, webhookSignature: String?, body: [UInt8]) {
            self.contentType = contentType
            self.webhookID = webhookID
            self.webhookTimestamp = webhookTimestamp
            self.webhookSignature = webhookSignature
            self.body = body
        }
    }

    public nonisolated let settings: Settings
    private let users: UsersFile
    private let codes: OneTimeCodeStore?
    private let audit: AuditLog?
    private let clock: @Sendable () -> Date
    private var replays: ReplayCache
    private var lockouts: [String: LockoutTracker] = [:]
    private var totpLastStep: [String: Int] = [:]

    public init(
        settings: Settings, users: UsersFile, codes: OneTimeCodeStore?, audit: AuditLog?,
        clock: @escaping @Sendable () -> Date = Date.init
    ) {
        self.settings = settings
        self.users = users
        self.codes = codes
        self.audit = audit
        self.clock = clock
        replays = ReplayCache(capacity: settings.replayCapacity)
    }

    public func handle(_ request: Incoming) -> Reply {
        let now = clock()
        guard request.contentType?.lowercased().hasPrefix("application/json") == true else {
            return reject(400, "content-type must be application/json", request)
        }
        guard request.body.count <= settings.maxBodyBytes else {
            return reject(400, "body larger than \(settings.maxBodyBytes) bytes", request)
        }
        if let secret = settings.secret {
            if let failure = WebhookSignature.verify(
                id: request.webhookID, timestamp: request.webhookTimestamp, signature: request.webhookSignature,
                body: request.body, secret: secret, now: now)
            {
                return reject(401, failure.description, request)
            }
            guard replays.insert(request.webhookID ?? "") else {
                return reject(409, "webhook-id was already used (replay)", request)
            }
        }
        let decoded: VerificationRequestBody.Decoded
        do {
            decoded = try VerificationRequestBody.decode(request.body)
        } catch {
            return reject(400, "\(error)", request)
        }
        let moment = Duration.seconds(now.timeIntervalSince1970)
        var tracker = lockouts[decoded.terminalID] ?? LockoutTracker(policy: settings.lockout)
        if tracker.isLocked(at: moment) {
            record(decoded, decision: "denied", reason: "terminal locked out", user: nil)
            return Reply(status: 200, body: VerificationResponseBody.encode(granted: false, message: "Locked out"))
        }
        let user = decide(decoded, now: now)
        if user != nil {
            tracker.recordGrant()
        } else {
            _ = tracker.recordDenial(at: moment)
        }
        lockouts[decoded.terminalID] = tracker
        record(decoded, decision: user == nil ? "denied" : "granted", reason: user == nil ? "no match" : "match", user: user)
        return Reply(status: 200, body: VerificationResponseBody.encode(granted: user != nil, unlockSeconds: user == nil ? nil : settings.unlockSeconds))
    }

    /// The user the value belongs to, or nil. Every user's PIN hash is checked (no early exit).
    private func decide(_ request: VerificationRequestBody.Decoded, now: Date) -> String? {
        switch request.kind {
        case .pin:
            var matched: String?
            for user in users.users where user.pinHash.matches(request.value) { matched = matched ?? user.name }
            return matched
        case .code:
            let seconds = Int(now.timeIntervalSince1970)
            let totpUser: String? = request.value.withASCIIBytes { candidate in
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
            if let totpUser { return totpUser }
            return (try? codes?.redeem(request.value)) ?? nil
        }
    }

    private func reject(_ status: Int, _ reason: String, _ request: Incoming) -> Reply {
        try? audit?.append([
            ("time", timestamp()), ("decision", "rejected"), ("status", String(status)), ("reason", reason),
            ("webhook_id", String((request.webhookID ?? "").prefix(64))),
        ])
        return Reply(status: status, body: Array("{\"error\":\(VerificationRequestBody.jsonString(reason))}".utf8))
    }

    private func record(_ request: VerificationRequestBody.Decoded, decision: String, reason: String, user: String?) {
        var fields = [
            ("time", timestamp()), ("terminal_id", request.terminalID), ("attempt_id", request.attemptID),
            ("kind", request.kind.rawValue), ("digits", String(request.value.count)), ("decision", decision), ("reason", reason),
        ]
        if let user { fields.append(("user", user)) }
        try? audit?.append(fields)
    }

    private func timestamp() -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: clock())
    }
}
