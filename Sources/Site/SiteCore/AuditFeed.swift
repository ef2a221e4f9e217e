import Foundation

/// Which audit records a reader of the feed wants (`GET /api/v1/audit`).
public struct AuditFeedFilter: Sendable, Equatable {
    /// What a record is.
    public enum Kind: String, Sendable, CaseIterable {
        /// A decision at a door (granted or denied): "who entered".
        case decision
        /// An administrator's change.
        case change
    }

    public var kind: Kind?
    public var door: String?
    public var user: String?
    /// `granted` or `denied` (decisions only).
    public var decision: String?
    public var since: Date?

    public init(kind: Kind? = nil, door: String? = nil, user: String? = nil, decision: String? = nil, since: Date? = nil) {
        self.kind = kind
        self.door = door
        self.user = user
        self.decision = decision
        self.since = since
    }
}

/// The site's audit log read in order with a cursor: every record after `after` (its id), so a
/// client that keeps the last id it read follows new records without gaps or repeats, across
/// its own restarts and the site's.
public protocol AuditFeed: Sendable {
    /// Up to `limit` records with ids above `after`, oldest first, as stored (JSON text). On
    /// PostgreSQL only records older than a few seconds are given, so that one committed late
    /// by another instance (with a lower id) is never skipped.
    func auditRecords(after: Int64, limit: Int, filter: AuditFeedFilter, now: Date) async throws -> [(id: Int64, record: String)]
}
