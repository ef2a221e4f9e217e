import Foundation
import KioskPadAccess
import KioskPadEndpoints

/// How a message is posted to a receiver (``WebhookDispatcher``); the server's is an HTTP
/// client with no redirects and a deadline per try.
public protocol WebhookTransport: Sendable {
    /// POSTs `body` with `headers` to `target` within `timeout`, connecting to the first of
    /// its checked addresses (never looking its host up again); the status the receiver answered.
    func post(to target: WebhookTargetPolicy.Target, headers: [(String, String)], body: [UInt8], timeout: TimeInterval) async throws -> Int

    /// What kind of failure `error` (thrown by ``post(to:headers:body:timeout:)``) was, as a
    /// delivery shows it; the detail goes to the site's log only.
    func failureClass(_ error: any Error) -> WebhookFailureClass
}

/// A failed try as a delivery's `last_error` shows it: a class, never the transport's own
/// words (which would tell refused, filtered and closed ports of the site's network apart).
public enum WebhookFailureClass: String, Sendable {
    case refusedByPolicy = "refused: the target is not allowed (see the site's log)"
    case connection = "connection failed"
    case timeout = "timed out"
    case tls = "TLS failed"

    /// A receiver's status other than 2xx.
    public static func http(_ status: Int) -> String { "HTTP \(status)" }
}

/// When a failed try is tried again, and when the site gives up (docs/api.md, "Webhooks"):
/// after 5 s, 30 s, 2 min, 10 min, 30 min, then every hour, until 24 hours after the event;
/// then the delivery is failed, listed, and sent again only by an administrator.
public struct WebhookRetryPolicy: Sendable {
    public var delays: [TimeInterval]
    public var giveUpAfter: TimeInterval
    /// One try's deadline: connecting, sending and the receiver's answer.
    public var timeout: TimeInterval
    /// How long a sender holds a claimed delivery: longer than a try, so that no other instance
    /// takes it while it is tried; after a crash, another instance (or the next start) takes it
    /// when this ends and sends it again with the same `webhook-id`.
    public var lease: TimeInterval
    /// How often each instance looks for due deliveries.
    public var poll: TimeInterval
    /// Each wait is this fraction longer or shorter, at random, so the retries of many messages
    /// (or of many sites) do not come all at once.
    public var jitter: Double
    /// A subscription whose receiver failed every try for this long is disabled, with an
    /// audit record (`webhook_disable`) and a warning in the log (`server.webhooks.disable_after_hours`).
    public var disableAfter: TimeInterval
    /// A subscription whose receiver failed every try for this long is in an outage: its
    /// messages are no longer sent strictly in order but each on its own backoff, oldest due
    /// first, so each is tried within its window (``WebhookStore/dueDeliveries(now:limit:outageAfter:)``).
    public var outageAfter: TimeInterval
    /// Five minutes: a blip (a receiver restarting) keeps the order.
    public static let outageAfterDefault: TimeInterval = 300

    public init(
        delays: [TimeInterval] = [5, 30, 120, 600, 1_800, 3_600], giveUpAfter: TimeInterval = 86_400, timeout: TimeInterval = 10, lease: TimeInterval = 30,
        poll: TimeInterval = 0.2, jitter: Double = 0.2, disableAfter: TimeInterval = 48 * 3_600, outageAfter: TimeInterval = outageAfterDefault
    ) {
        self.outageAfter = outageAfter
        self.delays = delays
        self.giveUpAfter = giveUpAfter
        self.timeout = timeout
        self.lease = lease
        self.poll = poll
        self.jitter = jitter
        self.disableAfter = disableAfter
    }

    /// The wait after the `tries`th try failed (1: the first), without the jitter.
    public func delay(afterTry tries: Int) -> TimeInterval {
        delays.isEmpty ? 3_600 : delays[min(max(tries, 1), delays.count) - 1]
    }

    /// ``delay(afterTry:)`` with the jitter.
    public func jitteredDelay(afterTry tries: Int) -> TimeInterval {
        let spread = min(max(jitter, 0), 0.9)
        return delay(afterTry: tries) * (spread == 0 ? 1 : Double.random(in: (1 - spread)...(1 + spread)))
    }
}

/// Sends the queued webhook messages: each instance of the site server runs one. It takes the
/// first undelivered message of each subscription when it is due, claims it in the database (so
/// that of several instances one sends it), posts it signed with Standard Webhooks, and records
/// the outcome. Subscriptions are sent to side by side: a slow or dead receiver holds up only
/// its own queue, and nothing here runs in a door's request (the messages were queued by the
/// store in the request's own transaction). Delivery is at least once: a crash after a
/// receiver's 200 and before it is recorded sends the message again with the same `webhook-id`.
public actor WebhookDispatcher {
    let store: any WebhookStore
    let transport: any WebhookTransport
    let policy: WebhookRetryPolicy
    let clock: @Sendable () -> Date
    let userAgent: String
    let targets: WebhookTargets
    let log: @Sendable (String) -> Void
    let disabled: @Sendable (String) async -> Void
    var sending: Set<String> = []

    /// `targets` checks each delivery's URL again (its host looked up anew) before it is
    /// sent; `log` is told each failure's detail, which the delivery shows only as a class;
    /// `disabled` is told the name of a subscription this instance disabled (the alert).
    public init(
        store: any WebhookStore, transport: any WebhookTransport, policy: WebhookRetryPolicy = WebhookRetryPolicy(), userAgent: String = "kioskpad-verifier",
        targets: WebhookTargets = WebhookTargets(), log: @escaping @Sendable (String) -> Void = { _ in },
        disabled: @escaping @Sendable (String) async -> Void = { _ in }, clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.transport = transport
        self.policy = policy
        self.userAgent = userAgent
        self.targets = targets
        self.log = log
        self.disabled = disabled
        self.clock = clock
    }

    /// Looks for due deliveries every `policy.poll` and sends them, until the task is cancelled.
    /// A database error waits for the next look.
    public func run() async {
        await withDiscardingTaskGroup { group in
            while !Task.isCancelled {
                let due = (try? await store.dueDeliveries(now: clock(), limit: 200, outageAfter: policy.outageAfter)) ?? []
                for delivery in due where !sending.contains(delivery.subscription) {
                    sending.insert(delivery.subscription)
                    group.addTask { await self.tryOnce(delivery) }
                }
                try? await Task.sleep(for: .seconds(policy.poll))
            }
            group.cancelAll()
        }
    }

    /// One try of `delivery`, if this instance gets it.
    func tryOnce(_ delivery: WebhookDelivery) async {
        defer { sending.remove(delivery.subscription) }
        let now = clock()
        guard let claimed = try? await store.claimDelivery(id: delivery.id, now: now, until: now.addingTimeInterval(policy.lease)) else { return }
        let outcome = await post(claimed)
        let finished = clock()
        try? await store.finishTry(id: delivery.id, outcome: outcome, now: finished)
        guard outcome != .delivered else { return }
        let cutoff = finished.addingTimeInterval(-policy.disableAfter)
        if (try? await store.noteFailure(subscription: delivery.subscription, now: finished, disableIfFailingSince: cutoff)) == true {
            log(
                "webhook \(delivery.subscription): disabled, its receiver failed every try for \(Int(policy.disableAfter / 3_600)) h; `kioskpad verifier webhook enable \(delivery.subscription)` sends to it again"
            )
            await disabled(delivery.subscription)
        }
    }

    /// Posts a claimed delivery and says what became of it.
    func post(_ claimed: ClaimedDelivery) async -> WebhookTryOutcome {
        let delivery = claimed.delivery
        let body = Array(delivery.body.utf8)
        let headers =
            WebhookSignature.headers(id: delivery.messageID, body: body, secret: claimed.secret, now: clock()).map { ($0.name, $0.value) }
            + [("content-type", "application/json"), ("user-agent", userAgent)]
        let problem: String
        switch await targets.check(claimed.url) {
        case .failure(let refusal):
            log("webhook \(delivery.subscription): delivery \(delivery.id) not sent: \(refusal.description)")
            problem = WebhookFailureClass.refusedByPolicy.rawValue
        case .success(let target):
            do {
                let status = try await transport.post(to: target, headers: headers, body: body, timeout: policy.timeout)
                if (200..<300).contains(status) { return .delivered }
                problem = WebhookFailureClass.http(status)
            } catch {
                problem = transport.failureClass(error).rawValue
                log(
                    "webhook \(delivery.subscription): delivery \(delivery.id) to \(WebhookTargetPolicy.shown(claimed.url)) failed: \(String(describing: error).prefix(300))"
                )
            }
        }
        let now = clock()
        if now.timeIntervalSince(delivery.created) >= policy.giveUpAfter { return .givenUp(error: problem) }
        return .retry(at: now.addingTimeInterval(policy.jitteredDelay(afterTry: delivery.attempts)), error: problem)
    }
}
