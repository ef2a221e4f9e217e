import DoorOfflineReplica
import DoorServices
import DoorVerifierClient
import Foundation
import KioskPadAccess
import KioskPadConfig
import KioskPadCore
import Logging
import ServiceLifecycle

/// The parts of `verifier.offline.mode: fallback`: the keeper of the replica file and the
/// loop that keeps it fresh.
public struct ReplicaParts: Sendable {
    public let keeper: ReplicaKeeper
    public let sync: ReplicaSyncLoop
}

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
        let key: ReplicaPublicKey
        do {
            key = try ReplicaPublicKey(parsing: offline.publicKey)
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
        let trust = configuration.daemon.clockTrust
        let keeper = ReplicaKeeper(
            settings: ReplicaKeeper.Settings(
                terminalID: configuration.terminalID, publicKey: key, path: stateDirectory + "/" + OfflineConfiguration.fileName,
                maxAge: offline.maxAge, wallClockTrusted: { KernelClock.trusted(trust) }))
        let client = try ReplicaSyncClient(url: offline.url, terminalID: configuration.terminalID, secret: secret, settings: settings)
        return ReplicaParts(keeper: keeper, sync: ReplicaSyncLoop(keeper: keeper, client: client, interval: offline.syncInterval, logger: logger))
    }
}

/// Runs the replica's sync loop until the service group shuts down; the site's mode for
/// this door (lockdown, release) goes to the door from each replica a sync brings (the
/// one held at start is applied before the terminal runs).
struct ReplicaSyncService: Service {
    let loop: ReplicaSyncLoop
    let modes: DoorModeController

    func run() async throws {
        let (keeper, modes) = (loop.keeper, self.modes)
        await cancelWhenGracefulShutdown {
            await loop.run(afterSync: { await ReplicaSyncService.follow(keeper.held?.replica, modes: modes) })
        }
    }

    /// Makes the door follow what `replica` says: the site's mode and the unlock schedule.
    static func follow(_ replica: CredentialReplica?, modes: DoorModeController) async {
        await modes.follow(site: replica?.mode, unlock: replica.flatMap(unlockPlan))
    }

    /// `replica`'s unlock schedule made ready (nil: none, or one that does not compile:
    /// the door then stays locked outside grants, fail secure).
    static func unlockPlan(_ replica: CredentialReplica) -> DoorUnlockPlan? {
        guard let unlock = replica.unlock, let spec = replica.schedules[unlock.schedule],
            let schedule = try? WeeklySchedule(parsing: spec)
        else { return nil }
        let schedules = replica.schedules.compactMapValues { try? WeeklySchedule(parsing: $0) }
        let holidays = replica.holidays.compactMap { day, rule in try? Holiday(day: day, words: rule.split(separator: " ")) }
        let staff = Set(replica.rules.filter { $0.value.split(separator: " ").contains("staff") }.keys)
        return DoorUnlockPlan(
            schedule: schedule, zone: replica.timeZone.flatMap(TimeZone.init(identifier:)) ?? .current,
            holidays: HolidayCalendar(holidays, schedules: schedules), firstIn: unlock.firstIn, staff: staff)
    }
}

/// Looks at the clock for the door's unlock schedule once a minute, just after the minute
/// turns (schedules are in whole minutes), while the service group runs.
struct UnlockScheduleService: Service {
    let modes: DoorModeController

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let seconds = Date().timeIntervalSince1970
                try? await Task.sleep(for: .milliseconds(Int64((60 - seconds.truncatingRemainder(dividingBy: 60) + 0.2) * 1000)))
                if !Task.isCancelled { await modes.tick() }
            }
        }
    }
}
