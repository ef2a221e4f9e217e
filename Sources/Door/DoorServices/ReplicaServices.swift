import DoorOfflineReplica
import Foundation
import KioskPadAccess
import KioskPadCore
import ServiceLifecycle

/// Runs the replica's sync loop, and its push channel when `verifier.offline.push` is on, until
/// the service group shuts down; the site's mode for this door (lockdown, release) goes to
/// the door from each replica a sync brings (the one held at start is applied before the
/// terminal runs).
struct ReplicaSyncService: Service {
    let loop: ReplicaSyncLoop
    let modes: DoorModeController
    /// The site's remote commands, taken on the push channel.
    var commands: RemoteCommandRunner?

    func run() async throws {
        let (keeper, modes, commands) = (loop.keeper, self.modes, self.commands)
        let follow: @Sendable () async -> Void = { await ReplicaSyncService.follow(keeper.held?.replica, modes: modes) }
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await loop.run(afterSync: follow) }
                if loop.push { group.addTask { await loop.watch(afterSync: follow, commands: commands) } }
            }
        }
    }

    /// Makes the door follow what `replica` says: the site's mode and the unlock schedule.
    public static func follow(_ replica: CredentialReplica?, modes: DoorModeController) async {
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
