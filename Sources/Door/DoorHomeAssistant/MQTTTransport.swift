/// Where the Home Assistant bridge publishes and what it hears back: ``MQTTLink`` (a
/// libmosquitto client) in production, a recording double in unit tests.
public protocol MQTTTransport: Sendable {
    /// Queues one message; false when there is no connection to take it.
    @discardableResult
    func publish(topic: String, payload: [UInt8], retain: Bool) -> Bool
    /// Subscribes on the current connection (call again after every connect).
    func subscribe(_ topic: String)
}

/// How the link to the broker stands, as logs, metrics and `/healthz` name it.
public enum MQTTConnectionState: Equatable, Sendable, CustomStringConvertible {
    case connecting
    case connected
    /// The broker answered and refused (`reason` as libmosquitto words it: bad password, ...).
    case refused(reason: String)
    /// No broker answered, or the connection was lost, or the client could not be set up.
    case unavailable(reason: String)

    public var description: String {
        switch self {
        case .connecting: return "connecting"
        case .connected: return "connected"
        case .refused(let reason): return "refused: \(reason)"
        case .unavailable(let reason): return "unavailable: \(reason)"
        }
    }

    /// The metrics label: `connecting`, `connected`, `refused` or `unavailable`.
    public var label: String {
        switch self {
        case .connecting: return "connecting"
        case .connected: return "connected"
        case .refused: return "refused"
        case .unavailable: return "unavailable"
        }
    }
}

/// A message the broker delivered to a subscription.
public struct MQTTInbound: Sendable {
    public let topic: String
    public let payload: MQTTPayload
    public let retained: Bool

    public init(topic: String, payload: MQTTPayload, retained: Bool) {
        self.topic = topic
        self.payload = payload
        self.retained = retained
    }
}

/// A received payload, copied once out of libmosquitto's buffer and zeroed when the last
/// reference goes: a remote unlock command carries a code.
public final class MQTTPayload: @unchecked Sendable {
    // @unchecked: written once in init, only read afterwards, wiped in deinit.
    public let count: Int
    private let storage: UnsafeMutablePointer<UInt8>

    public init(copying bytes: UnsafeRawBufferPointer) {
        count = bytes.count
        storage = .allocate(capacity: max(count, 1))
        storage.initialize(repeating: 0, count: max(count, 1))
        if let base = bytes.baseAddress, count > 0 { storage.update(from: base.assumingMemoryBound(to: UInt8.self), count: count) }
    }

    public convenience init(_ bytes: [UInt8]) {
        self.init(copying: bytes.withUnsafeBytes { UnsafeRawBufferPointer(start: $0.baseAddress, count: $0.count) })
    }

    public func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try body(UnsafeBufferPointer(start: storage, count: count))
    }

    /// The payload is exactly `text`.
    public func equals(_ text: String) -> Bool {
        withBytes { $0.elementsEqual(text.utf8) }
    }

    deinit {
        for index in 0..<max(count, 1) { storage[index] = 0 }
        storage.deallocate()
    }
}
