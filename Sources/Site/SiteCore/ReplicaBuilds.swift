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

    /// What a delta from one version to `version` is made from, for every door that holds
    /// the same one: the users the changes name, their credential lines with their tags, the
    /// site's rules, and the mark of `version`.
    public struct DeltaInputs: Sendable {
        public let version: Int64
        public let mark: String
        public let users: [String]
        public let site: SiteRules
        public let lines: [(record: UserRecord, tag: String?)]
    }

    /// A delta's inputs are shared by the doors that hold `from` (with `mark`) while the site is at `to`.
    private struct DeltaKey: Hashable {
        let from: Int64
        let mark: String
        let to: Int64
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
    /// The deltas' inputs being read or read, for the latest version only (nil inside: no delta can say it).
    private var deltas: [DeltaKey: Task<DeltaInputs?, any Error>] = [:]
    /// Reads of deltas' inputs (one per version a door holds and the version it is brought to).
    public private(set) var deltaReads = 0

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

    /// The inputs of a delta from `from` (its `mark`) to `to`, read by `read` only when no door
    /// asked for the same before; nil when no delta can say it. `read` throws ``Moved`` when the
    /// version moved under it, and is not kept. Only the latest `to`'s are kept.
    func deltaInputs(
        from: Int64, mark: String, to: Int64, read: @escaping @Sendable () async throws -> DeltaInputs?
    ) async throws -> DeltaInputs? {
        let key = DeltaKey(from: from, mark: mark, to: to)
        if let task = deltas[key], let inputs = try? await task.value { return inputs }
        if deltas.keys.contains(where: { $0.to != to }) { deltas = deltas.filter { $0.key.to == to } }
        let task = Task { try await read() }
        deltas[key] = task
        deltaReads += 1
        do {
            return try await task.value
        } catch {
            deltas[key] = nil
            throw error
        }
    }
}
