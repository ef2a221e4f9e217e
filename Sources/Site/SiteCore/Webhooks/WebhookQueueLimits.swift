/// How much may wait for one subscription (`server.webhooks.max_pending` and
/// `max_pending_bytes`): a message for a subscription whose queue is full is not queued for it
/// but counted as dropped, never an error, so a dead receiver neither fills the disk nor stops
/// the change or the door's attempt that raised the message.
public struct WebhookQueueLimits: Sendable, Equatable {
    /// Pending messages per subscription.
    public var maxPending: Int
    /// Bytes of pending message bodies per subscription.
    public var maxPendingBytes: Int

    public init(maxPending: Int = 10_000, maxPendingBytes: Int = 10_000_000) {
        self.maxPending = maxPending
        self.maxPendingBytes = maxPendingBytes
    }
}
