import Foundation
import KioskPadAccess
import KioskPadStorage

/// One event as every subscription that wants it receives it: a Standard Webhooks body
/// `{"type", "timestamp", "data"}` and the `webhook-id` it keeps through every retry. The data
/// is the site's audit record or the door's record as the site stored it: never a PIN, code,
/// secret or key (neither record holds one).
public struct WebhookMessage: Sendable, Equatable {
    /// `msg_` and 128 random bits: the `webhook-id`, the same to every subscription and on every try.
    public let id: String
    public let type: WebhookEventType
    /// The JSON body, exactly as it is signed and sent.
    public let body: String

    public init(id: String, type: WebhookEventType, body: String) {
        self.id = id
        self.type = type
        self.body = body
    }

    /// The message for an audit record (`fields`, as ``AuditRecordJSON`` writes it), or nil when
    /// no webhook carries it.
    public static func forAudit(_ fields: [(String, String)], now: Date) throws -> WebhookMessage? {
        guard let type = WebhookEventType.forAudit(fields) else { return nil }
        return make(type, data: try AuditRecordJSON.encode(fields), now: now)
    }

    /// The message for a record a door forwarded, or nil when no webhook carries it. `data` is
    /// the door's record (flat JSON, checked when it was received) with its door and type.
    public static func forDoorRecord(_ event: DoorEvent, now: Date) -> WebhookMessage? {
        guard let type = WebhookEventType.forDoorRecord(type: event.type) else { return nil }
        return make(type, data: event.json, now: now)
    }

    static func make(_ type: WebhookEventType, data: String, now: Date) -> WebhookMessage {
        let id = "msg_" + String(RandomToken.text().prefix(22))
        let body = "{\"data\":\(data),\"timestamp\":\"\(UTCTimestamp.rfc3339(now, milliseconds: true))\",\"type\":\"\(type.rawValue)\"}"
        return WebhookMessage(id: id, type: type, body: body)
    }
}
