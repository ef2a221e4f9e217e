/// What a door's request to `/v1/events` or `/v1/credentials` came to. The core knows no
/// HTTP: `SiteHTTP` answers each case as docs/openapi.yaml says (200; 400, 401 or 409 with
/// `{"error": reason}`; 429 with `Retry-After`; 503).
public enum DoorRequestOutcome: Sendable, Equatable {
    /// Done; `json` is the answer.
    case done(json: [UInt8])
    /// Refused for good; `reason` says why, naming what would be valid.
    case refused(VerifierDecision.Refusal, reason: String)
    /// `door` is over its event quota (`limit`: `records_per_minute` or `bytes_per_day`);
    /// its batch fits again after `retryAfter` seconds.
    case overQuota(door: String, limit: String, retryAfter: Int)
    /// The database cannot be used now; the door tries again later.
    case unavailable
    /// Refused (401) because the door is retired, with the site's signed word of it for the
    /// push request's nonce (``DoorRetirement`` in a signed command's envelope, `{payload, signature}`).
    case retired(reason: String, statement: [String: String])

    /// The outcome as the endpoint metrics' `result` label names it.
    public var result: String {
        switch self {
        case .done: return "ok"
        case .refused(let refusal, _): return refusal.rawValue
        case .retired: return VerifierDecision.Refusal.unauthenticated.rawValue
        case .overQuota: return "over_quota"
        case .unavailable: return "unavailable"
        }
    }

    /// The seconds to wait before trying again (over the quota), else nil.
    public var retryAfter: Int? {
        if case .overQuota(_, _, let seconds) = self { return seconds }
        return nil
    }

    /// The answer's JSON (`done`), else nil.
    public var json: [UInt8]? {
        if case .done(let json) = self { return json }
        return nil
    }

    /// The answer's text (`done`) or the reason (`refused`); empty otherwise.
    public var text: String {
        switch self {
        case .done(let json): return String(decoding: json, as: UTF8.self)
        case .refused(_, let reason), .retired(let reason, _): return reason
        case .overQuota, .unavailable: return ""
        }
    }

    static func done(_ text: String) -> DoorRequestOutcome { .done(json: Array(text.utf8)) }
    static func malformed(_ reason: String) -> DoorRequestOutcome { .refused(.malformed, reason: reason) }
    static func unauthenticated(_ reason: String) -> DoorRequestOutcome { .refused(.unauthenticated, reason: reason) }
}
