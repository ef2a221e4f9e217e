import Foundation
import KioskPadAccess
import KioskPadStorage

/// The replica a door holds, as kept in `state_dir` (mode 0600): the signed replica in
/// `replica.json`, with the signed deltas applied to it since, in order; the newest signed
/// confirmation of its version, and the boot clock when it arrived, in
/// `replica-confirmation.json`. Every signature is checked every time the files are read.
public struct HeldReplica: Sendable {
    /// The last whole replica.
    public let signed: SignedReplica
    /// The deltas applied to it, oldest first (``CredentialReplicaDelta``).
    public let deltas: [SignedReplica]
    /// The replica the door decides from: ``signed``'s with ``deltas`` applied.
    public let replica: CredentialReplica
    public let confirmation: SignedReplica?
    /// The newest `issued_at` the verifier signed for this version (the replica's own, or
    /// a later confirmation's): the replica's age counts from here.
    public let confirmedAt: Date
    /// This boot's clock when ``confirmedAt`` arrived (nil when the kernel gave none).
    public let anchor: BootInstant?

    /// A door asks for a delta while it holds fewer than this many; then for the whole replica,
    /// so the file and each start's signature checks stay small.
    public static let maxDeltas = 64

    public init(
        signed: SignedReplica, deltas: [SignedReplica] = [], replica: CredentialReplica, confirmation: SignedReplica?, confirmedAt: Date,
        anchor: BootInstant?
    ) {
        self.signed = signed
        self.deltas = deltas
        self.replica = replica
        self.confirmation = confirmation
        self.confirmedAt = confirmedAt
        self.anchor = anchor
    }

    public var version: Int64 { replica.version }

    /// Distinct users in the replica.
    public var userCount: Int { Set(replica.entries.map(\.user)).count }

    /// The mark a sync sends back to be given a delta (nil: ask for the whole replica).
    public var markForDelta: String? {
        deltas.count < Self.maxDeltas ? replica.mark : nil
    }

    /// `replica.json`: the signed replica (format 1), or it and its deltas (format 2, which a
    /// kioskpad older than deltas refuses, fetching the whole replica), rewritten only when a
    /// new version comes.
    public func replicaFileContents() throws -> [UInt8] {
        var object: [String: Any] = ["format": 1, "replica": signed.jsonObject]
        if !deltas.isEmpty {
            object["format"] = 2
            object["deltas"] = deltas.map(\.jsonObject)
        }
        return Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
    }

    /// `replica-confirmation.json`: the newest confirmation and the boot clock when it came,
    /// rewritten by a new replica and, after unchanged syncs, once the one on disk is old
    /// (``ReplicaKeeper/confirmationWriteInterval(maxAge:)``).
    public func confirmationFileContents() throws -> [UInt8] {
        var object: [String: Any] = ["format": 1, "version": version]
        object["confirmation"] = confirmation?.jsonObject ?? NSNull()
        if let anchor {
            object["boot_id"] = anchor.bootID
            object["boottime_ns"] = anchor.nanoseconds
        }
        return Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }

    /// The replica in `bytes` (`replica.json`), if a key of `trust` signed it for `terminalID`, with
    /// the confirmation file's `confirmationBytes` when they confirm the same version (a
    /// confirmation of another version, left by a power cut between the two writes, is
    /// ignored, and with it the boot clock reading: the door then waits for its next sync
    /// to trust the time). A replica that fails its checks throws, saying what is wrong.
    public init(fileContents bytes: [UInt8], confirmationBytes: [UInt8]?, trust: ReplicaTrust, terminalID: String) throws {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any], let format = object["format"] as? Int,
            [1, 2].contains(format), let replicaObject = object["replica"] as? [String: Any]
        else { throw ReplicaError("the replica file is not a replica this version of kioskpad wrote") }
        let signedReplica = try SignedReplica(jsonObject: replicaObject)
        guard case .replica(var replica) = try trust.open(signedReplica) else {
            throw ReplicaError("the replica file holds a confirmation where the replica belongs")
        }
        guard replica.terminalID == terminalID else { throw ReplicaError("the replica file is for terminal '\(replica.terminalID)', not '\(terminalID)'") }
        let deltaObjects = object["deltas"] ?? [Any]()
        guard let deltaObjects = deltaObjects as? [Any] else { throw ReplicaError("the replica file's deltas are not a list") }
        var deltas: [SignedReplica] = []
        for (index, deltaObject) in deltaObjects.enumerated() {
            let signedDelta = try SignedReplica(jsonObject: deltaObject)
            guard case .delta(let delta) = try trust.open(signedDelta) else {
                throw ReplicaError("the replica file's deltas[\(index)] is not a delta")
            }
            replica = try replica.applying(delta)
            deltas.append(signedDelta)
        }
        var confirmedAt = replica.issuedAt
        var confirmation: SignedReplica?
        var anchor: BootInstant?
        if let confirmationBytes, let file = (try? JSONSerialization.jsonObject(with: Data(confirmationBytes))) as? [String: Any],
            (file["version"] as? NSNumber)?.int64Value == replica.version
        {
            if let confirmationObject = file["confirmation"] as? [String: Any] {
                let signedConfirmation = try SignedReplica(jsonObject: confirmationObject)
                guard case .confirmation(let terminal, let version, let issuedAt) = try trust.open(signedConfirmation), terminal == terminalID,
                    version == replica.version
                else { throw ReplicaError("the confirmation file does not confirm the replica it stands beside") }
                confirmation = signedConfirmation
                confirmedAt = max(confirmedAt, issuedAt)
            }
            if let boot = file["boot_id"] as? String, let nanoseconds = (file["boottime_ns"] as? NSNumber)?.int64Value {
                anchor = BootInstant(bootID: boot, nanoseconds: nanoseconds)
            }
        }
        self.init(signed: signedReplica, deltas: deltas, replica: replica, confirmation: confirmation, confirmedAt: confirmedAt, anchor: anchor)
    }
}
