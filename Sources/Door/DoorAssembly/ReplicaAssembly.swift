import DoorConfig
import DoorOfflineReplica
import DoorServices
import DoorVerifierClient
import Foundation
import KioskPadAccess
import KioskPadConfig
import KioskPadCore
import KioskPadEndpoints
import Logging

extension TerminalAssembly {
    /// The replica's keeper and sync loop when `verifier.offline.mode` is `fallback` (nil
    /// otherwise); the replica lives in `stateDirectory`, which fallback needs.
    public static func replicaParts(_ configuration: KioskPadConfiguration, stateDirectory: String?, logger: Logger) throws -> ReplicaParts? {
        guard case .http(let http) = configuration.verifier, let offline = http.offline else { return nil }
        guard let stateDirectory else {
            throw KeyedError(
                key: "state_dir", message: "verifier.offline.mode: fallback keeps the replica in state_dir, which this config does not set",
                fix: "add state_dir: DIR (kioskpad run uses \(DaemonConfiguration.defaultStateDirectory))")
        }
        let keys: ReplicaTrust
        do {
            keys = ReplicaTrust(
                current: try ReplicaPublicKey(parsing: offline.publicKey), next: offline.nextPublicKey.flatMap { try? ReplicaPublicKey(parsing: $0) })
        } catch {
            throw KeyedError(key: "verifier.offline.public_key", message: "\(error)")
        }
        let settings = try httpSettings(http)
        guard let secret = settings.secret else {
            throw KeyedError(
                key: "verifier.secret_file",
                message: "verifier.offline.mode: fallback needs the door's secret: the verifier gives a replica only to a signed request")
        }
        do {
            try FileManager.default.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw KeyedError(key: "state_dir", message: "cannot create \(stateDirectory) for the replica: \(error)", kind: .unavailable(retryable: true))
        }
        let clockTrust = configuration.daemon.clockTrust
        let keeper = ReplicaKeeper(
            settings: ReplicaKeeper.Settings(
                terminalID: configuration.terminalID, trust: keys, path: stateDirectory + "/" + OfflineConfiguration.fileName,
                maxAge: offline.maxAge, wallClockTrusted: { KernelClock.trusted(rtc: clockTrust == .rtc) }))
        // Replicas come from where /verify goes, address by address, unless offline.url names one place.
        let urls = offline.urlGiven ? [offline.url] : http.urls.map { VerifierURL.replacingPath($0, with: OfflineConfiguration.replicaPath) }
        let client = try ReplicaSyncClient(urls: urls, terminalID: configuration.terminalID, secret: secret, settings: settings)
        return ReplicaParts(
            keeper: keeper, sync: ReplicaSyncLoop(keeper: keeper, client: client, interval: offline.syncInterval, push: offline.push, logger: logger))
    }
}
