/// What a door did with an attempt its verifier could not answer (connection refused,
/// reset, timeout, 5xx): decided it from its credential replica (`replicaVersion`), or
/// refused to (`refusal` says why: no replica, too old, no trusted time, a code). Never
/// carries the digits typed.
public struct OfflineDecision: Sendable, Equatable {
    /// `granted`, `denied`, or `refused` (not decided: the door stays shut, as before).
    public let decision: String
    public let replicaVersion: Int64?
    public let refusal: String?
    /// Why the site gave no answer (a refused connection, the deadline, a 5xx), as the door saw it.
    public let siteUnreachable: String?

    public init(decision: String, replicaVersion: Int64?, refusal: String?, siteUnreachable: String? = nil) {
        self.decision = decision
        self.replicaVersion = replicaVersion
        self.refusal = refusal
        self.siteUnreachable = siteUnreachable
    }
}
