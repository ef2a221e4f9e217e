import Foundation

/// The nonces of ID tokens this process has taken, until they could no longer be fresh: an
/// ID token is taken once, so a token seen again (replayed from a log, a proxy or another
/// tab) is refused even with its cookie. At most `capacity` are held; the oldest go first.
public actor NonceLedger {
    private var seen: [String: Date] = [:]
    private var order: [(String, Date)] = []
    let capacity: Int

    public init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    /// Takes `nonce`, remembered until `until`; false when it was taken before.
    public func claim(_ nonce: String, until: Date, now: Date) -> Bool {
        while let first = order.first, first.1 <= now || order.count >= capacity {
            order.removeFirst()
            if seen[first.0] == first.1 { seen[first.0] = nil }
        }
        guard seen[nonce] == nil else { return false }
        seen[nonce] = until
        order.append((nonce, until))
        return true
    }
}
