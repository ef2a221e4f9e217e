import DoorVerifierClient
import Foundation
import KioskPadAccess
import KioskPadCore
import KioskPadThreads
import Logging

/// Keeps a door's replica fresh: a sync at start, then every `sync_s` (each wait varied by
/// up to a fifth either way, so doors that started together drift apart), waiting longer
/// after failures (twice, four, then eight times `sync_s`); and, with `push`, a sync as soon
/// as the site's push channel says the version moved (``watch(afterSync:)``). A change from
/// working to failing, or back, is logged once.
public struct ReplicaSyncLoop: Sendable {
    public let keeper: ReplicaKeeper
    public let client: ReplicaSyncClient
    public let interval: Duration
    /// Whether the door holds the site's push channel (`verifier.offline.push`).
    public let push: Bool
    /// The adopted door's check-in, which the push channel wakes when the site asks.
    public let checkIns = CheckInNudge()
    let logger: Logger
    private let syncs = OneSyncAtATime()

    public init(keeper: ReplicaKeeper, client: ReplicaSyncClient, interval: Duration, push: Bool = true, logger: Logger) {
        self.keeper = keeper
        self.client = client
        self.interval = interval
        self.push = push
        self.logger = logger
    }

    /// One fetch and check: what it brought, or why it failed. One at a time: a sync asked
    /// for while another runs gets that one's result.
    public func syncOnce() async throws -> ReplicaKeeper.SyncSummary {
        let (keeper, client) = (self.keeper, self.client)
        return try await syncs.run {
            let held = keeper.held
            let signed = try await client.fetch(have: held?.version ?? 0, mark: held?.markForDelta)
            let received = BootInstant.now()
            // The check and the file writes (fsync, rename) on the file thread, never a cooperative one.
            return try await WorkThreads.files.run { try keeper.accept(signed, receivedAt: received) }
        }
    }

    /// Holds the site's push channel until cancelled: each request waits at the site until
    /// the replica's version passes the one held (or 25 s pass); a newer version is synced at
    /// once, then `afterSync` runs. After a failure the next try goes at once, and after a second
    /// one waits 1 s, doubling to 60 s
    /// (varied by a fifth either way); a site without the channel is asked again after 10
    /// minutes. The poll goes on meanwhile, so with the channel down the door syncs as before.
    ///
    /// With `commands`, each request carries a new nonce and the last command taken, and the
    /// remote commands in its answer go to `commands` before any sync; a refusal carrying the
    /// site's signed word that this door is retired, once `commands` has checked it, removes
    /// the replica (``ReplicaKeeper/retire()``): the door decides offline no more, and asks
    /// again every 10 minutes. An adopted door's request says the newest settings version its
    /// check-in knows; told to check in, it wakes the check-in (``checkIns``) and waits for it
    /// (5 s at most) before asking again.
    public func watch(afterSync: @Sendable () async -> Void = {}, commands: (any RemoteCommandTaker)? = nil) async {
        var failures = 0
        while !Task.isCancelled {
            var pause: Duration?
            var asking: (after: Int64, nonce: String)?
            do {
                let have = keeper.version
                if let commands { asking = (await commands.lastTaken(), DoorCommand.makeNonce()) }
                let known = checkIns.known
                let answer = try await client.watch(have: have, commands: asking, settings: known, wait: .seconds(25))
                if let commands, let asking, !answer.commands.isEmpty { await commands.take(answer.commands, nonce: asking.nonce) }
                // The check-in's own answer is signed; this only says to ask now.
                if answer.checkIn, known != nil { await checkIns.nudge(waitingUpTo: .seconds(5)) }
                let version = answer.version
                if version > have {
                    let summary = try await syncOnce()
                    await afterSync()
                    logger.notice("credential replica synced", metadata: Self.metadata(summary, by: "push"))
                    // A site that says "newer" and then gives nothing newer is not asked again at once.
                    if summary.version <= have { pause = .seconds(5) }
                }
                // Only after the sync it asked for: a site that answers the channel and fails
                // every sync is asked at the backoff's pace, not in a loop.
                if failures > 0 { logger.notice("push channel open again", metadata: ["url": "\(client.url)"]) }
                failures = 0
            } catch ReplicaSyncClient.WatchError.retired(let why, let statement) {
                if let commands, let asking, await commands.retired(statement, nonce: asking.nonce) {
                    if keeper.held != nil {
                        do {
                            try await WorkThreads.files.run { [keeper] in try keeper.retire() }
                            logger.warning("the site retired this door: its replica is removed and it decides offline no more", metadata: ["why": "\(why)"])
                        } catch {
                            logger.error("the site retired this door, but its replica could not be removed", metadata: ["error": "\(error)"])
                        }
                    }
                } else if failures == 0 {
                    logger.warning("push channel refused", metadata: ["why": "\(why)"])
                }
                failures = max(failures, 1)
                pause = .seconds(600)
            } catch ReplicaSyncClient.WatchError.notOffered(let why) {
                if failures == 0 { logger.notice("no push channel", metadata: ["why": "\(why)"]) }
                failures = 1
                pause = .seconds(600)
            } catch {
                if Task.isCancelled { return }
                if failures == 0 {
                    logger.warning("push channel failed; the door syncs every sync_s meanwhile", metadata: ["error": "\(error)", "url": "\(client.url)"])
                }
                failures += 1
                // The first try again goes at once: a sync refused as a retired door's is
                // then followed by the push request that says so, signed.
                if failures > 1 {
                    pause = .milliseconds(Int64(min(60.0, Double(1 << min(failures - 2, 6))) * Double.random(in: 0.8...1.2) * 1000))
                }
            }
            if let pause { try? await Task.sleep(for: pause) }
        }
    }

    /// What a sync's log line says of it.
    static func metadata(_ summary: ReplicaKeeper.SyncSummary, by: String) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["version": "\(summary.version)", "users": "\(summary.users)", "changed": "\(summary.changed)", "by": "\(by)"]
        if let changed = summary.deltaUsers { metadata["delta_users"] = "\(changed)" }
        return metadata
    }

    /// Syncs until cancelled; `afterSync` runs after each sync that succeeded.
    public func run(afterSync: @Sendable () async -> Void = {}) async {
        var failures = 0
        while !Task.isCancelled {
            do {
                let summary = try await syncOnce()
                await afterSync()
                if failures > 0 || summary.changed {
                    logger.notice("credential replica synced", metadata: Self.metadata(summary, by: "poll"))
                }
                failures = 0
            } catch {
                if failures == 0 {
                    logger.warning(
                        "credential replica sync failed; the door keeps the replica it has", metadata: ["error": "\(error)", "url": "\(client.url)"])
                }
                failures += 1
            }
            try? await Task.sleep(for: ReplicaSyncLoop.delay(interval: interval, failures: failures))
        }
    }

    /// The wait before the next sync after `failures` failures in a row.
    static func delay(interval: Duration, failures: Int) -> Duration {
        let factor = Double(1 << min(failures, 3))
        return .milliseconds(Int64(interval.timeInterval * factor * Double.random(in: 0.8...1.2) * 1000))
    }
}
