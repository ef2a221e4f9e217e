import Foundation
import KioskPadAccess
import KioskPadThreads

/// Whole replicas made once per version and off Swift's cooperative threads: what every
/// door's replica of one version is made from (the site's rules, every credential line, the
/// tags, the tag key, the version's mark) is read once and shared by every door that asks for
/// that version (a schedule changed, and 200 doors fetch their whole replica at once: one
/// read, not 200); each door's replica is then chosen from it, encoded and signed on threads
/// of their own (`kp-replica`; `kp-replica-N` with several), so a burst of them delays no `/verify`, check-in, event or API
/// request, which go on on the shared threads meanwhile.
public actor ReplicaBuilds {
    /// One version's inputs.
    public struct Inputs: Sendable {
        public let version: Int64
        public let site: SiteRules
        public let records: [UserRecord]
        public let tags: [String: String]
        public let tagKey: ReplicaTagKey
        public let mark: String?

        public init(version: Int64, site: SiteRules, records: [UserRecord], tags: [String: String], tagKey: ReplicaTagKey, mark: String?) {
            self.version = version
            self.site = site
            self.records = records
            self.tags = tags
            self.tagKey = tagKey
            self.mark = mark
        }
    }

    /// The version moved while its inputs were read: read again at the new one.
    struct Moved: Error {}

    /// The threads whole replicas are built, encoded and signed on: half the cores (one on
    /// two), so the hashes of `/verify` keep the rest; up to 1,024 waiting (a door past that
    /// is answered 503 and asks again).
    public static let thread = WorkThreads(
        name: "kp-replica", threads: max(1, ProcessInfo.processInfo.activeProcessorCount / 2), queueLimits: [1_024])

    /// The latest version's read, shared by every door that asks while it runs and after.
    private var latest: (version: Int64, read: Task<Inputs, any Error>)?
    /// Reads of inputs (for tests and the benchmark: one per version however many doors ask).
    public private(set) var reads = 0

    public init() {}

    /// The inputs of `version`, read by `read` only when no door asked for this version
    /// before; `read` throws ``Moved`` when the version moved under it, and is not kept.
    func inputs(at version: Int64, read: @escaping @Sendable () async throws -> Inputs) async throws -> Inputs {
        if let latest, latest.version == version, let inputs = try? await latest.read.value { return inputs }
        let task = Task { try await read() }
        latest = (version, task)
        reads += 1
        do {
            return try await task.value
        } catch {
            if latest?.version == version { latest = nil }
            throw error
        }
    }
}
