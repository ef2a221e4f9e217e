import Foundation
import SQLKit
import SiteCore

/// The audit feed on ``SQLConsoleStore``: the audit table by id, filtered on the JSON fields
/// the console's entries use (their indexes serve decisions by door and by user).
extension SQLConsoleStore: AuditFeed {
    /// How old a record must be before PostgreSQL's feed gives it: ids are taken when a row is
    /// inserted, so of two instances' transactions the later id can commit first; a reader past
    /// it would skip the other. No site transaction holds its audit row this long. SQLite has
    /// one writer, and gives every committed record at once.
    static let postgresSettle: TimeInterval = 5

    public func auditRecords(after: Int64, limit: Int, filter: AuditFeedFilter, now: Date) async throws -> [(id: Int64, record: String)] {
        let dialect = database.dialect
        let field = { (key: String) in dialect.jsonField("record", key) }
        var conditions: [SQLQueryString] = ["id > \(bind: after)"]
        switch filter.kind {
        case .decision?: conditions.append("\(unsafeRaw: field("decision")) IN ('granted', 'denied')")
        case .change?: conditions.append("\(unsafeRaw: field("action")) IS NOT NULL")
        case nil: break
        }
        if let door = filter.door { conditions.append("\(unsafeRaw: field("terminal_id")) = \(bind: door)") }
        if let user = filter.user { conditions.append("\(unsafeRaw: field("user")) = \(bind: user)") }
        if let decision = filter.decision { conditions.append("\(unsafeRaw: field("decision")) = \(bind: decision)") }
        if let since = filter.since { conditions.append("at >= \(dialect.auditInstant(since))") }
        if database.engine == .postgres { conditions.append("at < \(dialect.auditInstant(now.addingTimeInterval(-Self.postgresSettle)))") }
        let query: SQLQueryString = """
            SELECT id, \(unsafeRaw: dialect.jsonText("record")) FROM kioskpad_audit WHERE \(conditions.joined(separator: " AND "))
            ORDER BY id LIMIT \(bind: Int64(limit))
            """
        return try await database.read { try await $0.raw(query).all() }.map { (try $0.integer("id"), try $0.text("record")) }
    }
}
