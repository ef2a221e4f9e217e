import KioskPadCore
import Metrics
import Prometheus
import SiteCore

/// The reference verifier's `/metrics` (Prometheus text format): requests by decision, the
/// time each took to decide, and, with a database, how many of its pooled connections are
/// in use and how many requests wait for one. Nothing derived from a PIN or code.
public final class VerifierMetrics: Sendable {
    /// The pool's state now: connections in use, requests waiting for one, pool size.
    public typealias PoolReading = @Sendable () -> (inUse: Int, waiting: Int, size: Int)

    public let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory
    private let latency: Metrics.Timer
    private let pool: PoolReading?
    private let inUse: Metrics.Gauge
    private let waiting: Metrics.Gauge
    private let size: Metrics.Gauge

    public init(pool: PoolReading? = nil) {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5].map { Duration.milliseconds(Int($0 * 1000)) }
        self.registry = registry
        self.factory = factory
        latency = Metrics.Timer(label: "kioskpad_verifier_request_duration_seconds", factory: factory)
        self.pool = pool
        inUse = Metrics.Gauge(label: "kioskpad_verifier_db_connections_in_use", factory: factory)
        waiting = Metrics.Gauge(label: "kioskpad_verifier_db_requests_waiting", factory: factory)
        size = Metrics.Gauge(label: "kioskpad_verifier_db_pool_size", factory: factory)
    }

    /// Counts one request's decision and how long it took.
    public func record(_ decision: VerifierDecision, duration: Duration) {
        Metrics.Counter(label: "kioskpad_verifier_decisions_total", dimensions: [("result", VerifierMetrics.result(decision))], factory: factory)
            .increment()
        latency.recordNanoseconds(Int64(duration.components.seconds) * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }

    /// Counts one request to another door endpoint (`events`, `credentials`) by its result:
    /// `ok`, `malformed`, `unauthenticated`, `replayed`, `throttled`, `over_quota` or `unavailable`.
    public func recordEndpoint(_ endpoint: String, result: String) {
        Metrics.Counter(label: "kioskpad_verifier_door_requests_total", dimensions: [("endpoint", endpoint), ("result", result)], factory: factory)
            .increment()
    }

    /// The exposition, pool gauges read now.
    public func exposition() -> [UInt8] {
        if let pool {
            let reading = pool()
            inUse.record(reading.inUse)
            waiting.record(reading.waiting)
            size.record(reading.size)
        }
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return buffer
    }

    /// The `result` label: granted, denied, second_factor_required, card_enrolled, locked_out, malformed, unauthenticated, replayed, repeated (an attempt sent again, answered as before), throttled or unavailable.
    static func result(_ decision: VerifierDecision) -> String {
        switch decision {
        case .answer(let granted, _, _, _, _): return (granted ? Decision.granted : .denied).rawValue
        case .lockedOut: return "locked_out"
        case .secondFactorRequired: return DenialReason.secondFactorRequired.rawValue
        case .cardEnrolled: return DenialReason.cardEnrolled.rawValue
        case .enrolment(let outcome): return outcome.result
        case .refused(let refusal, _): return refusal.rawValue
        case .throttled: return "throttled"
        case .unavailable: return "unavailable"
        case .repeated: return "repeated"
        }
    }
}
