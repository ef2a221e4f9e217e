/// Remembers recently seen `webhook-id`s, bounded in count: a repeat is a replay (409).
public struct ReplayCache: Sendable {
    public let capacity: Int
    private var seen: Set<String> = []
    private var order: [String] = []
    private var head = 0

    public init(capacity: Int) {
        self.capacity = max(capacity, 1)
    }

    /// Records `id`; returns false when it was already there.
    public mutating func insert(_ id: String) -> Bool {
        guard !seen.contains(id) else { return false }
        if seen.count >= capacity {
            seen.remove(order[head])
            order[head] = id
            head = (head + 1) % capacity
        } else {
            order.append(id)
        }
        seen.insert(id)
        return true
    }

    public var count: Int { seen.count }
}
