import Foundation
import KioskPadAccess
import KioskPadEndpoints

/// Where the site sends the events of some types: a URL that passed the site's
/// ``WebhookTargetPolicy`` and the secret its messages are signed with.
public struct WebhookSubscription: Sendable {
    public let name: String
    public let url: String
    public let events: Set<WebhookEventType>
    public let secret: WebhookSecret
    /// Whether plain `http://` was allowed for this one when subscriptions could say so (before
    /// `server.webhooks.allow_http`); kept as stored, no longer read.
    public let allowHTTP: Bool
    public let createdBy: String
    public let created: Date
    /// When the site stopped sending to it, its receiver having failed every try for
    /// ``WebhookRetryPolicy/disableAfter``; nil while it is sent to.
    public var disabled: Date?

    public init(
        name: String, url: String, events: Set<WebhookEventType>, secret: WebhookSecret, allowHTTP: Bool, createdBy: String, created: Date,
        disabled: Date? = nil
    ) {
        self.name = name
        self.url = url
        self.events = events
        self.secret = secret
        self.allowHTTP = allowHTTP
        self.createdBy = createdBy
        self.created = created
        self.disabled = disabled
    }
}

/// One message on its way to one subscription, as the site's queue keeps it.
public struct WebhookDelivery: Sendable, Equatable {
    /// Where it stands.
    public enum State: String, Sendable {
        /// Waiting for its first try or its next one.
        case pending
        /// The receiver answered 2xx.
        case delivered
        /// Given up after the retry window; "send again" puts it back.
        case failed
    }

    public let id: Int64
    public let subscription: String
    public let messageID: String
    public let type: WebhookEventType
    public let body: String
    public let created: Date
    public let attempts: Int
    public let nextAttempt: Date
    public let state: State
    /// What the last try met: an HTTP status or a transport error (nil: none yet, or delivered).
    public let lastError: String?
    public let finished: Date?

    public init(
        id: Int64, subscription: String, messageID: String, type: WebhookEventType, body: String, created: Date, attempts: Int, nextAttempt: Date,
        state: State, lastError: String?, finished: Date?
    ) {
        self.id = id
        self.subscription = subscription
        self.messageID = messageID
        self.type = type
        self.body = body
        self.created = created
        self.attempts = attempts
        self.nextAttempt = nextAttempt
        self.state = state
        self.lastError = lastError
        self.finished = finished
    }
}

/// A delivery a sender has claimed for one try, with where it goes.
public struct ClaimedDelivery: Sendable {
    public let delivery: WebhookDelivery
    public let url: String
    public let secret: WebhookSecret

    public init(delivery: WebhookDelivery, url: String, secret: WebhookSecret) {
        self.delivery = delivery
        self.url = url
        self.secret = secret
    }
}

/// The webhook subscriptions and the delivery queue in the site's database (every instance sees
/// the same). Messages are queued by the store itself, in the same transaction as the audit
/// record or door record they carry.
public protocol WebhookStore: Sendable {
    /// Stores `subscription`; false when one of that name exists.
    func addWebhook(_ subscription: WebhookSubscription) async throws -> Bool
    /// Removes subscription `name` and its queue; false when there is none.
    func removeWebhook(name: String) async throws -> Bool
    /// Every subscription, by name, with its pending and failed counts and the messages it
    /// dropped because its queue was full (``WebhookQueueLimits``).
    func webhooks() async throws -> [(subscription: WebhookSubscription, pending: Int, failed: Int, dropped: Int)]
    /// One message of each subscription that may be sent at `now` (due, and no sender holds
    /// it). In order while a subscription's receiver answers or has failed for less than
    /// `outageAfter`: its first undelivered message, when that is due. Once every try to it
    /// has failed for `outageAfter` (an outage, not a blip), each of its messages keeps its own
    /// backoff: the oldest that is due, so one message's long wait holds none behind it past
    /// its window (issue 78). One delivered try ends the outage, and the order comes back.
    func dueDeliveries(now: Date, limit: Int, outageAfter: TimeInterval) async throws -> [WebhookDelivery]
    /// Takes delivery `id` for one try until `until`; nil when another sender holds it or it is
    /// finished. Counts the try.
    func claimDelivery(id: Int64, now: Date, until: Date) async throws -> ClaimedDelivery?
    /// Records the outcome of a try: delivered, to be tried again at `retryAt`, or given up. A
    /// delivered one ends its subscription's run of failures.
    func finishTry(id: Int64, outcome: WebhookTryOutcome, now: Date) async throws
    /// A try for `subscription` failed at `now`: its run of failures starts now unless it has
    /// one; true when that run started at or before `cutoff` and this disabled it (its
    /// deliveries wait, none is tried, until ``enableWebhook(name:)``).
    func noteFailure(subscription: String, now: Date, disableIfFailingSince cutoff: Date) async throws -> Bool
    /// Sends to a disabled subscription again (its queue as it was); false when there is none
    /// of that name or it was not disabled.
    func enableWebhook(name: String) async throws -> Bool
    /// The newest deliveries of `subscription` (all subscriptions: nil), newest first.
    func deliveries(subscription: String?, state: WebhookDelivery.State?, limit: Int) async throws -> [WebhookDelivery]
    /// Puts failed delivery `id` back in its queue, due now; false when there is no failed one.
    func resendDelivery(id: Int64, now: Date) async throws -> Bool
}

/// What one try of a delivery came to.
public enum WebhookTryOutcome: Sendable, Equatable {
    case delivered
    case retry(at: Date, error: String)
    case givenUp(error: String)
}

extension WebhookStore {
    /// ``dueDeliveries(now:limit:outageAfter:)`` with ``WebhookRetryPolicy/outageAfterDefault``.
    public func dueDeliveries(now: Date, limit: Int) async throws -> [WebhookDelivery] {
        try await dueDeliveries(now: now, limit: limit, outageAfter: WebhookRetryPolicy.outageAfterDefault)
    }
}
