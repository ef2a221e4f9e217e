import Foundation
import KioskPadEndpoints
import Synchronization

/// The addresses of one site a door may ask (`verifier.urls`, `events.urls`): tried in the
/// order given, with a short health memory. An address that failed (no answer, or 503) goes
/// behind the others for ``memory``; then it is first again in its place. So a site of two
/// `verifier serve` instances needs no load balancer, and a door does not wait on a dead
/// instance at every attempt. Each client keeps its own memory.
public final class SiteAddresses: Sendable {
    /// The URLs as configured, first preferred.
    public let urls: [String]
    /// How long a failed address stays behind the others.
    public let memory: Duration
    private let now: @Sendable () -> ContinuousClock.Instant
    /// When each address failed last; nil when it answered since (or never failed).
    private let failedAt: Mutex<[ContinuousClock.Instant?]>

    /// Thirty seconds: a few attempts at a door, two check-ins at most.
    public static let defaultMemory: Duration = .seconds(30)

    /// `urls` must not be empty; `now` is the clock (a test's own).
    public init(_ urls: [String], memory: Duration = SiteAddresses.defaultMemory, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        precondition(!urls.isEmpty, "a site has at least one address")
        self.urls = urls
        self.memory = memory
        self.now = now
        failedAt = Mutex(Array(repeating: nil, count: urls.count))
    }

    /// The addresses' indices in the order to try them now: those that did not fail within
    /// ``memory`` in their configured order, then the others, the one that failed longest ago first.
    public func order() -> [Int] {
        let instant = now()
        let failures = failedAt.withLock { $0 }
        let recent = failures.indices.filter { index in failures[index].map { instant - $0 < memory } ?? false }
        let healthy = failures.indices.filter { !recent.contains($0) }
        return healthy + recent.sorted { failures[$0]! < failures[$1]! }
    }

    /// `index` gave no answer (refused, reset, timed out) or said it cannot answer now (503).
    public func failed(_ index: Int) {
        let instant = now()
        failedAt.withLock { $0[index] = instant }
    }

    /// `index` answered.
    public func answered(_ index: Int) {
        failedAt.withLock { $0[index] = nil }
    }

    /// The address at `index`, with its path replaced by `path` when one is given (the
    /// check-in, enrolment and replica endpoints beside `/verify`).
    public func url(_ index: Int, path: String? = nil) -> String {
        guard let path else { return urls[index] }
        return VerifierURL.replacingPath(urls[index], with: path)
    }

    /// Each address's share of one deadline for its first try when several remain untried, so
    /// a dead first address (its packets dropped) leaves time to ask the next one.
    public func firstTryBudget(of deadline: Duration) -> Duration {
        urls.count > 1 ? deadline / urls.count : deadline
    }
}
