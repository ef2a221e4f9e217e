import Foundation
import KioskPadAccess
import KioskPadCore

/// Adding and removing webhook subscriptions and sending a failed delivery again, for the
/// command line, the console and the API alike: each a change by an administrator
/// (``AdministratorChanges``), audited as `webhook_add`, `webhook_remove` or `webhook_resend`
/// with the subscription's name, URL and types, never its secret.
public struct WebhookAdministration: Sendable {
    let store: any WebhookStore
    let changes: AdministratorChanges

    public init(store: any WebhookStore, changes: AdministratorChanges) {
        self.store = store
        self.changes = changes
    }

    /// Adds subscription `name`; returns its secret (`whsec_...`, shown once).
    public func add(name: String, url: String, events: Set<WebhookEventType>, allowHTTP: Bool, now: Date = Date()) async throws -> WebhookSecret {
        guard Identifier.isValid(name) else { throw WebhookProblem(.name, "\(name) is not a webhook name (1-64 of letters, digits, '.', '_' or '-')") }
        if let problem = WebhookSubscription.urlProblem(url, allowHTTP: allowHTTP) { throw WebhookProblem(.url, problem) }
        let secret = WebhookSecret.generate()
        let subscription = WebhookSubscription(
            name: name, url: url, events: events, secret: secret, allowHTTP: allowHTTP, createdBy: changes.administrator.name, created: now)
        let types = WebhookEventType.text(events)
        try await changes.apply(.webhookAdd, [("webhook", name), ("url", url), ("events", types)] + (allowHTTP ? [("allow_http", "true")] : [])) {
            guard try await store.addWebhook(subscription) else {
                throw WebhookProblem(.name, .exists, "a webhook named \(name) exists already (remove it first, or choose another name)")
            }
        }
        return secret
    }

    /// Removes subscription `name` and every delivery still queued for it.
    public func remove(name: String) async throws {
        try await changes.apply(.webhookRemove, [("webhook", name)]) {
            guard try await store.removeWebhook(name: name) else {
                throw WebhookProblem(.name, .missing, "there is no webhook named \(name) (see `kioskpad verifier webhook list`)")
            }
        }
    }

    /// Sends failed delivery `id` again (its `webhook-id` unchanged), first in its queue's order.
    public func resend(id: Int64, now: Date = Date()) async throws {
        try await changes.apply(.webhookResend, [("delivery", String(id))]) {
            guard try await store.resendDelivery(id: id, now: now) else {
                throw WebhookProblem(.delivery, .missing, "there is no failed delivery \(id) (see `kioskpad verifier webhook deliveries --failed`)")
            }
        }
    }
}
