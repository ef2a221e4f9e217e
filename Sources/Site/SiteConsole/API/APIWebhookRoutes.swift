import Foundation
import Hummingbird
import KioskPadAccess
import KioskPadStorage
import SiteCore

/// `/api/v1/webhooks`: subscriptions listed (scope read), added and removed (scope webhooks),
/// a subscription's deliveries listed, and a failed one sent again. A secret and the whole URL
/// are shown once, in the answer that adds the subscription; lists show the URL redacted.
/// Where a webhook may go is the site's config file's to widen (`server.webhooks`), never a
/// token's: `allow_http` is refused.
struct APIWebhookRoutes: Sendable {
    let store: any WebhookStore
    let changes: APIUserChanges
    let targets: WebhookTargets
    static let fields: Set<String> = ["name", "url", "events", "allow_http"]

    func list(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        APIResponse.json([
            "webhooks": try await store.webhooks().map { Self.json($0.subscription, pending: $0.pending, failed: $0.failed, dropped: $0.dropped) }
        ])
    }

    func add(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let fields: StrictJSON.Fields
        switch try await APIBody.object(request, allowed: Self.fields) {
        case .failure(let refusal): return refusal.response
        case .success(let object): fields = object
        }
        guard let name = fields.string("name") else { return APIResponse.error(.badRequest, "name must be a string") }
        guard let url = fields.string("url") else { return APIResponse.error(.badRequest, "url must be a string (https://...)") }
        if fields.has("allow_http"), fields.bool("allow_http") != false {
            return APIResponse.error(
                .badRequest, "allow_http: plain http:// is allowed by the site's config file only (server.webhooks.allow_http), not through the API")
        }
        let events: Set<WebhookEventType>
        do {
            events = try Self.events(fields)
            let secret = try await WebhookAdministration(store: store, changes: changes.changes(context), targets: targets).add(
                name: name, url: url, events: events, now: changes.services.now())
            guard let added = try await store.webhooks().first(where: { $0.subscription.name == name }) else {
                return APIResponse.error(.serviceUnavailable, "the webhook was added but cannot be read back now")
            }
            var body = Self.json(added.subscription, pending: added.pending, failed: added.failed, dropped: added.dropped)
            body["secret"] = secret.text
            body["url"] = url
            return APIResponse.json(body, status: .created)
        } catch let problem as WebhookProblem {
            return APIResponse.error(problem.kind == .exists ? .conflict : .badRequest, "\(problem.field.rawValue): \(problem.detail)")
        }
    }

    func remove(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let name = context.parameters.get("name") ?? ""
        do {
            try await WebhookAdministration(store: store, changes: changes.changes(context), targets: targets).remove(name: name)
        } catch is WebhookProblem {
            return APIResponse.error(.notFound, "there is no webhook \(name)")
        }
        return APIResponse.json(["name": name, "removed": true])
    }

    func deliveries(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let name = context.parameters.get("name") ?? ""
        let query = request.uri.queryParameters
        var state: WebhookDelivery.State?
        if let text = query["state"].map(String.init) {
            guard let parsed = WebhookDelivery.State(rawValue: text) else {
                return APIResponse.error(.badRequest, "state must be pending, delivered or failed")
            }
            state = parsed
        }
        let limit: Int
        switch APIPageLimit.read(request, fallback: 100, max: 1_000) {
        case .failure(let refusal): return refusal.response
        case .success(let number): limit = number
        }
        guard try await store.webhooks().contains(where: { $0.subscription.name == name }) else {
            return APIResponse.error(.notFound, "there is no webhook \(name)")
        }
        let list = try await store.deliveries(subscription: name, state: state, limit: limit)
        return APIResponse.json(["deliveries": list.map(Self.json)])
    }

    func resend(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let name = context.parameters.get("name") ?? ""
        guard let id = context.parameters.get("id").flatMap({ Int64($0) }),
            try await store.deliveries(subscription: name, state: .failed, limit: 1_000).contains(where: { $0.id == id })
        else {
            return APIResponse.error(.notFound, "webhook \(name) has no failed delivery \(context.parameters.get("id") ?? "")")
        }
        do {
            try await WebhookAdministration(store: store, changes: changes.changes(context), targets: targets).resend(id: id, now: changes.services.now())
        } catch is WebhookProblem {
            return APIResponse.error(.notFound, "webhook \(name) has no failed delivery \(id)")
        }
        return APIResponse.json(["id": id, "state": "pending"])
    }

    /// Sends to a webhook the site disabled again (scope webhooks); 404 for no such webhook, 409
    /// for one that is not disabled.
    func enable(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let name = context.parameters.get("name") ?? ""
        guard let hook = try await store.webhooks().first(where: { $0.subscription.name == name }) else {
            return APIResponse.error(.notFound, "there is no webhook \(name)")
        }
        guard hook.subscription.disabled != nil else { return APIResponse.error(.conflict, "webhook \(name) is not disabled") }
        do {
            try await WebhookAdministration(store: store, changes: changes.changes(context), targets: targets).enable(name: name)
        } catch is WebhookProblem {
            return APIResponse.error(.conflict, "webhook \(name) is not disabled")
        }
        return APIResponse.json(["name": name, "enabled": true])
    }

    /// `events`: a list of types, or `"*"` (left out: every type).
    static func events(_ fields: StrictJSON.Fields) throws -> Set<WebhookEventType> {
        guard fields.has("events") else { return Set(WebhookEventType.allCases) }
        if let text = fields.string("events") {
            guard text == "*" else { throw WebhookProblem(.events, "must be \"*\" or a list of event types") }
            return Set(WebhookEventType.allCases)
        }
        guard case .array(let items)? = fields.object["events"] else { throw WebhookProblem(.events, "must be \"*\" or a list of event types") }
        let words = items.compactMap(\.text)
        guard words.count == items.count, !words.isEmpty else { throw WebhookProblem(.events, "must be \"*\" or a non-empty list of event types") }
        return try WebhookEventType.parse(words.joined(separator: ","))
    }

    static func json(_ hook: WebhookSubscription, pending: Int, failed: Int, dropped: Int) -> [String: Any] {
        [
            "name": hook.name, "url": WebhookTargetPolicy.shown(hook.url), "events": hook.events.sorted().map(\.rawValue), "allow_http": hook.allowHTTP,
            "created_by": hook.createdBy, "created": UTCTimestamp.rfc3339(hook.created), "pending": pending, "failed": failed, "dropped": dropped,
            "disabled": hook.disabled.map { UTCTimestamp.rfc3339($0) as Any } ?? NSNull(),
        ]
    }

    static func json(_ delivery: WebhookDelivery) -> [String: Any] {
        [
            "id": delivery.id, "webhook_id": delivery.messageID, "type": delivery.type.rawValue, "state": delivery.state.rawValue,
            "attempts": delivery.attempts, "created": UTCTimestamp.rfc3339(delivery.created),
            "next_attempt": UTCTimestamp.rfc3339(delivery.nextAttempt), "last_error": delivery.lastError.map { $0 as Any } ?? NSNull(),
            "finished": delivery.finished.map { UTCTimestamp.rfc3339($0) as Any } ?? NSNull(),
        ]
    }
}
