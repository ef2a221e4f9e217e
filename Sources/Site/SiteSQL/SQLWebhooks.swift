import Foundation
import KioskPadAccess
import SQLKit
import SiteCore

/// Webhook subscriptions and their delivery queue in a ``SiteDatabase`` (schema version 11 and
/// later). Messages are queued by ``SQLVerifierStore`` in the transaction of the record they
/// carry (``queue(_:in:)``); this store lists, claims and finishes them.
public struct SQLWebhookStore: WebhookStore {
    public let database: any SiteDatabase

    public init(database: any SiteDatabase) {
        self.database = database
    }

    /// Queues `message` for every subscription that wants its type and has room under
    /// `limits`, inside the caller's transaction; a subscription without room counts it as
    /// dropped (never an error: a full queue does not stop the change or the attempt).
    static func queue(_ message: WebhookMessage, in sql: any SQLDatabase, now: Date, limits: WebhookQueueLimits) async throws {
        let bytes = Int64(message.body.utf8.count)
        let wants: SQLQueryString = "(events = '*' OR ',' || events || ',' LIKE \(bind: "%," + message.type.rawValue + ",%"))"
        let pending = "FROM kioskpad_webhook_deliveries d WHERE d.subscription = w.name AND d.state = 'pending'"
        try await sql.raw(
            """
            INSERT INTO kioskpad_webhook_deliveries (subscription, message_id, type, body, body_bytes, created_at, next_attempt_at)
            SELECT name, \(bind: message.id), \(bind: message.type.rawValue), \(bind: message.body), \(bind: bytes), \(bind: now.timeIntervalSince1970),
                \(bind: now.timeIntervalSince1970)
            FROM kioskpad_webhooks w WHERE
            """ + wants
                + """
                 AND (SELECT COUNT(*) \(unsafeRaw: pending)) < \(bind: Int64(limits.maxPending))
                 AND (SELECT COALESCE(SUM(d.body_bytes), 0) \(unsafeRaw: pending)) + \(bind: bytes) <= \(bind: Int64(limits.maxPendingBytes))
                """
        ).run()
        try await sql.raw(
            "UPDATE kioskpad_webhooks SET dropped = dropped + 1 WHERE " + wants
                + """
                 AND NOT EXISTS (SELECT 1 FROM kioskpad_webhook_deliveries d
                    WHERE d.subscription = kioskpad_webhooks.name AND d.message_id = \(bind: message.id))
                """
        ).run()
    }

    public func addWebhook(_ subscription: WebhookSubscription) async throws -> Bool {
        let events = WebhookEventType.text(subscription.events)
        return try await database.changed(
            """
            INSERT INTO kioskpad_webhooks (name, url, events, secret, allow_http, created_by, created_at)
            VALUES (\(bind: subscription.name), \(bind: subscription.url), \(bind: events), \(bind: subscription.secret.text),
                \(bind: Int64(subscription.allowHTTP ? 1 : 0)), \(bind: subscription.createdBy), \(bind: subscription.created.timeIntervalSince1970))
            ON CONFLICT (name) DO NOTHING RETURNING 1
            """) > 0
    }

    public func removeWebhook(name: String) async throws -> Bool {
        try await database.write { sql in
            try await sql.raw("DELETE FROM kioskpad_webhook_deliveries WHERE subscription = \(bind: name)").run()
            return try await sql.raw("DELETE FROM kioskpad_webhooks WHERE name = \(bind: name) RETURNING 1").all().count > 0
        }
    }

    public func webhooks() async throws -> [(subscription: WebhookSubscription, pending: Int, failed: Int, dropped: Int)] {
        let rows = try await database.read { sql in
            try await sql.raw(
                """
                SELECT name, url, events, secret, allow_http, created_by, created_at, dropped, disabled_at,
                    (SELECT COUNT(*) FROM kioskpad_webhook_deliveries d WHERE d.subscription = w.name AND d.state = 'pending') AS pending,
                    (SELECT COUNT(*) FROM kioskpad_webhook_deliveries d WHERE d.subscription = w.name AND d.state = 'failed') AS failed
                FROM kioskpad_webhooks w ORDER BY name
                """
            ).all()
        }
        return try rows.map { row in
            (try Self.subscription(row), Int(try row.integer("pending")), Int(try row.integer("failed")), Int(try row.integer("dropped")))
        }
    }

    public func dueDeliveries(now: Date, limit: Int, outageAfter: TimeInterval) async throws -> [WebhookDelivery] {
        let seconds = now.timeIntervalSince1970
        let outageSince = seconds - outageAfter
        return try await database.read { sql in
            // In order (the subscription's first pending message) unless its receiver has
            // failed every try since before `outageSince`: then its oldest message that is due
            // and free, each on its own backoff. One row per subscription either way.
            try await sql.raw(
                """
                SELECT \(unsafeRaw: Self.deliveryColumns) FROM kioskpad_webhook_deliveries d
                WHERE state = 'pending' AND next_attempt_at <= \(bind: seconds) AND (lease_until IS NULL OR lease_until <= \(bind: seconds))
                    AND id = (
                        SELECT MIN(e.id) FROM kioskpad_webhook_deliveries e WHERE e.subscription = d.subscription AND e.state = 'pending'
                            AND (NOT EXISTS (
                                    SELECT 1 FROM kioskpad_webhooks o WHERE o.name = d.subscription AND o.failing_since <= \(bind: outageSince))
                                OR (e.next_attempt_at <= \(bind: seconds) AND (e.lease_until IS NULL OR e.lease_until <= \(bind: seconds)))))
                    AND NOT EXISTS (SELECT 1 FROM kioskpad_webhooks w WHERE w.name = d.subscription AND w.disabled_at IS NOT NULL)
                ORDER BY id LIMIT \(bind: Int64(limit))
                """
            ).all()
        }.map(Self.delivery)
    }

    public func claimDelivery(id: Int64, now: Date, until: Date) async throws -> ClaimedDelivery? {
        try await database.write { sql in
            guard
                let row = try await sql.raw(
                    """
                    UPDATE kioskpad_webhook_deliveries SET lease_until = \(bind: until.timeIntervalSince1970), attempts = attempts + 1
                    WHERE id = \(bind: id) AND state = 'pending' AND (lease_until IS NULL OR lease_until <= \(bind: now.timeIntervalSince1970))
                    RETURNING \(unsafeRaw: Self.deliveryColumns)
                    """
                ).first()
            else { return nil }
            let delivery = try Self.delivery(row)
            guard
                let target = try await sql.raw("SELECT url, secret FROM kioskpad_webhooks WHERE name = \(bind: delivery.subscription)").first()
            else { return nil }
            return ClaimedDelivery(delivery: delivery, url: try target.text("url"), secret: try WebhookSecret(parsing: try target.text("secret")))
        }
    }

    public func finishTry(id: Int64, outcome: WebhookTryOutcome, now: Date) async throws {
        let statement: SQLQueryString
        // A delivered try also ends its subscription's run of failures.
        var endsFailures: SQLQueryString?
        switch outcome {
        case .delivered:
            endsFailures = """
                UPDATE kioskpad_webhooks SET failing_since = NULL
                WHERE failing_since IS NOT NULL AND name = (SELECT subscription FROM kioskpad_webhook_deliveries WHERE id = \(bind: id))
                """
            statement =
                "UPDATE kioskpad_webhook_deliveries SET state = 'delivered', finished_at = \(bind: now.timeIntervalSince1970), lease_until = NULL, last_error = NULL WHERE id = \(bind: id) RETURNING 1"
        case .retry(let at, let error):
            statement =
                "UPDATE kioskpad_webhook_deliveries SET next_attempt_at = \(bind: at.timeIntervalSince1970), last_error = \(bind: error), lease_until = NULL WHERE id = \(bind: id) AND state = 'pending' RETURNING 1"
        case .givenUp(let error):
            statement =
                "UPDATE kioskpad_webhook_deliveries SET state = 'failed', finished_at = \(bind: now.timeIntervalSince1970), last_error = \(bind: error), lease_until = NULL WHERE id = \(bind: id) AND state = 'pending' RETURNING 1"
        }
        guard let endsFailures else {
            _ = try await database.changed(statement)
            return
        }
        try await database.write { sql in
            try await sql.raw(endsFailures).run()
            try await sql.raw(statement).run()
        }
    }

    public func noteFailure(subscription: String, now: Date, disableIfFailingSince cutoff: Date) async throws -> Bool {
        try await database.write { sql in
            try await sql.raw(
                "UPDATE kioskpad_webhooks SET failing_since = \(bind: now.timeIntervalSince1970) WHERE name = \(bind: subscription) AND failing_since IS NULL"
            ).run()
            return try await sql.raw(
                """
                UPDATE kioskpad_webhooks SET disabled_at = \(bind: now.timeIntervalSince1970)
                WHERE name = \(bind: subscription) AND disabled_at IS NULL AND failing_since <= \(bind: cutoff.timeIntervalSince1970) RETURNING 1
                """
            ).all().count > 0
        }
    }

    public func enableWebhook(name: String) async throws -> Bool {
        try await database.changed(
            "UPDATE kioskpad_webhooks SET disabled_at = NULL, failing_since = NULL WHERE name = \(bind: name) AND disabled_at IS NOT NULL RETURNING 1") > 0
    }

    public func deliveries(subscription: String?, state: WebhookDelivery.State?, limit: Int) async throws -> [WebhookDelivery] {
        var conditions: [SQLQueryString] = []
        if let subscription { conditions.append("subscription = \(bind: subscription)") }
        if let state { conditions.append("state = \(bind: state.rawValue)") }
        let filter: SQLQueryString = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        return try await database.read { sql in
            try await sql.raw(
                "SELECT \(unsafeRaw: Self.deliveryColumns) FROM kioskpad_webhook_deliveries\(filter) ORDER BY id DESC LIMIT \(bind: Int64(limit))"
            ).all()
        }.map(Self.delivery)
    }

    public func resendDelivery(id: Int64, now: Date) async throws -> Bool {
        try await database.changed(
            """
            UPDATE kioskpad_webhook_deliveries SET state = 'pending', next_attempt_at = \(bind: now.timeIntervalSince1970),
                created_at = \(bind: now.timeIntervalSince1970), finished_at = NULL, lease_until = NULL
            WHERE id = \(bind: id) AND state = 'failed' RETURNING 1
            """) > 0
    }

    static let deliveryColumns = "id, subscription, message_id, type, body, created_at, attempts, next_attempt_at, state, last_error, finished_at"

    static func delivery(_ row: any SQLRow) throws -> WebhookDelivery {
        let typeText = try row.text("type")
        let stateText = try row.text("state")
        guard let type = WebhookEventType(rawValue: typeText), let state = WebhookDelivery.State(rawValue: stateText) else {
            throw SiteStoreFailure("database: a webhook delivery of type \(typeText), state \(stateText) is not one this kioskpad knows")
        }
        return WebhookDelivery(
            id: try row.integer("id"), subscription: try row.text("subscription"), messageID: try row.text("message_id"), type: type,
            body: try row.text("body"), created: Date(timeIntervalSince1970: try row.double("created_at")), attempts: Int(try row.integer("attempts")),
            nextAttempt: Date(timeIntervalSince1970: try row.double("next_attempt_at")), state: state, lastError: try row.optionalText("last_error"),
            finished: try row.optionalDouble("finished_at").map { Date(timeIntervalSince1970: $0) })
    }

    static func subscription(_ row: any SQLRow) throws -> WebhookSubscription {
        let eventsText = try row.text("events")
        let events =
            eventsText == "*" ? Set(WebhookEventType.allCases) : Set(eventsText.split(separator: ",").compactMap { WebhookEventType(rawValue: String($0)) })
        return WebhookSubscription(
            name: try row.text("name"), url: try row.text("url"), events: events, secret: try WebhookSecret(parsing: try row.text("secret")),
            allowHTTP: try row.integer("allow_http") != 0, createdBy: try row.text("created_by"),
            created: Date(timeIntervalSince1970: try row.double("created_at")),
            disabled: try row.optionalDouble("disabled_at").map { Date(timeIntervalSince1970: $0) })
    }
}
