import Foundation
import KioskPadAccess
import SiteCore

/// A door's `/verify` request as the reference verifier receives it: the body of one attempt
/// of `kind` with `value` at `door`, signed with `secret` at `now`.
public enum SignedAttempt {
    public static func incoming(_ kind: String, _ value: String, at door: String, secret: WebhookSecret, now: Date) -> ReferenceVerifier.Incoming {
        let id = UUID().uuidString
        let body = Array(
            "{\"terminal_id\":\"\(door)\",\"kind\":\"\(kind)\",\"value\":\"\(value)\",\"attempt_id\":\"\(id)\",\"entered_at\":\"2027-01-15T08:00:00Z\"}".utf8)
        let seconds = Int(now.timeIntervalSince1970)
        return ReferenceVerifier.Incoming(
            contentType: "application/json", webhookID: id, webhookTimestamp: String(seconds),
            webhookSignature: WebhookSignature.sign(id: id, timestamp: seconds, body: body, secret: secret), body: body)
    }
}
