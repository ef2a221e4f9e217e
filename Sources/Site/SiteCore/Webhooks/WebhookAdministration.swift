import Foundation
import KioskPadAccess
import KioskPadCore
import KioskPadEndpoints

/// Adding and removing webhook subscriptions and sending a failed delivery again, for the
/// command line, the console and the API alike: each a change by an administrator
/// (``AdministratorChanges``), audited as `webhook_add`, `webhook_remove` or `webhook_resend`
/// with the subscription's name, its URL as ``WebhookTargetPolicy/shown(_:)`` redacts it, and
/// its types; never its secret, nor the URL's path (a chat hook's token).
public struct WebhookAdministration: Sendable {
    let store: any WebhookStore
    let changes: AdministratorChanges
    let targets: WebhookTargets

    public init(store: any WebhookStore, changes: AdministratorChanges, targets: WebhookTargets) {
        self.store = store
        self.changes = changes
        self.targets = targets
    }

    /// Adds subscription `name` once its URL passes the site's target policy (every address
    /// its host resolves to); returns its secret (`whsec_...`, shown once).
    public func add(name: String, url: String, events: Set<WebhookEventType>, now: Date = Date()) async throws -> WebhookSecret {
        guard Identifier.isValid(name) else { throw WebhookProblem(.name, "\(name) is not a webhook name (1-64 of letters, digits, '.', '_' or '-')") }
        if case .failure(let refusal) = await targets.check(url) { throw WebhookProblem(.url, refusal.description) }
        let secret = WebhookSecret.generate()
        let subscription = WebhookSubscription(
            name: name, url: url, events: events, secret: secret, allowHTTP: false, createdBy: changes.administrator.name, created: now)
        let types = WebhookEventType.text(events)
        try await changes.apply(.webhookAdd, [("webhook", name), ("url", WebhookTargetPolicy.shown(url)), ("events", types)]) {
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

    /// Sends to subscription `name` again after the site disabled it (its receiver failed every
    /// try for ``WebhookRetryPolicy/disableAfter``); its queue is sent from where it stopped.
    public func enable(name: String) async throws {
        try await changes.apply(.webhookEnable, [("webhook", name)]) {
            guard try await store.enableWebhook(name: name) else {
                throw WebhookProblem(.name, .missing, "there is no disabled webhook named \(name) (see `kioskpad verifier webhook list`)")
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

/// The site's webhook target policy with the resolver it checks names through: what the
/// administration checks a new subscription with and the dispatcher each delivery.
public struct WebhookTargets: Sendable {
    public let policy: WebhookTargetPolicy
    public let resolve: @Sendable (String) async throws -> [IPAddress]

    public init(policy: WebhookTargetPolicy = WebhookTargetPolicy(), resolve: @escaping @Sendable (String) async throws -> [IPAddress] = WebhookResolver.system)
    {
        self.policy = policy
        self.resolve = resolve
    }

    public func check(_ url: String) async -> Result<WebhookTargetPolicy.Target, WebhookTargetPolicy.Refusal> {
        await policy.check(url, resolve: resolve)
    }
}
