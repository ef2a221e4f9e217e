import Foundation
import Hummingbird
import KioskPadCore
import KioskPadStorage
import SiteCore

/// `GET /api/v1/audit` (scope read): the audit log after a cursor, oldest first, filtered by
/// kind (decisions at doors, administrators' changes), door, user, decision and time. A client
/// keeps `next` and asks again with `after=next`: nothing is skipped or given twice.
struct APIAuditRoutes: Sendable {
    let feed: any AuditFeed
    let now: @Sendable () -> Date

    func read(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        let text = { (key: String) -> String? in query[key[...]].map(String.init) }
        var after: Int64 = 0
        if let value = text("after") {
            guard let number = Int64(value), number >= 0 else { return APIResponse.error(.badRequest, "after must be a record id (0 to 9223372036854775807)") }
            after = number
        }
        let limit: Int
        switch APIPageLimit.read(request, fallback: 100, max: 1_000) {
        case .failure(let refusal): return refusal.response
        case .success(let number): limit = number
        }
        var filter = AuditFeedFilter()
        if let value = text("kind") {
            guard let kind = AuditFeedFilter.Kind(rawValue: value) else { return APIResponse.error(.badRequest, "kind must be decision or change") }
            filter.kind = kind
        }
        if let value = text("decision") {
            guard let decision = Decision(rawValue: value), Decision.answered.contains(decision) else {
                return APIResponse.error(.badRequest, "decision must be granted or denied")
            }
            filter.decision = value
        }
        if let value = text("door") {
            guard Identifier.isValid(value) else { return APIResponse.error(.badRequest, "door must be a door id (1-64 of letters, digits, '.', '_' or '-')") }
            filter.door = value
        }
        filter.user = text("user")
        if let value = text("since") {
            guard let since = UTCTimestamp.parse(value) else { return APIResponse.error(.badRequest, "since must be an RFC 3339 date-time") }
            filter.since = since
        }
        let rows = try await feed.auditRecords(after: after, limit: limit, filter: filter, now: now())
        let records = rows.map { row -> [String: Any] in
            let record = (try? JSONSerialization.jsonObject(with: Data(row.record.utf8))) ?? [:]
            return ["id": row.id, "record": record]
        }
        return APIResponse.json(["records": records, "next": rows.last?.id ?? after])
    }
}
