import DoorController
import DoorHomeAssistant
import DoorOfflineReplica
import DoorVerifierClient
import Foundation
import Logging
import ServiceLifecycle

/// Everything around entry that a door terminal runs: the door relay and feedback outputs,
/// the audit journal and its forwarder, metrics, health, the door's modes and inputs, the
/// offline replica and Home Assistant. Built from config by the door's composition root
/// (`DaemonServices.init(configuration:...)` in DoorAssembly); this type only runs and stops
/// what it was given.
public final class DaemonServices: Sendable {
    public let door: DoorRelay?
    public let forwarder: EventForwarder?
    public let metrics: TerminalMetrics
    public let health: HealthState
    /// Every terminal event goes through this to the relay, feedback, journal, metrics and
    /// health, each from its own queue.
    public let bus: TerminalEventBus
    /// What forwards the journal's records to `events.urls` (nil without `events:`).
    public let poster: SignedPoster?
    private let metricsService: (any Service)?
    /// The door contact, exit button and tamper logic (nil without any of these inputs).
    public let doorMonitor: DoorMonitor?
    /// The door's mode: the site's lockdown or release (from the replica) and the fire alarm's release.
    public let modes: DoorModeController
    private let doorInputs: DoorInputsService?
    private let logger: Logger
    /// `events.heartbeat_s` when events are forwarded.
    private let heartbeat: Duration?
    /// The credential replica and its sync (`verifier.offline.mode: fallback`).
    public let replica: ReplicaParts?
    /// Home Assistant over MQTT (`mqtt:`).
    public let mqtt: MQTTParts?
    /// The site's remote unlock and lock, taken on the push channel (with the replica and `push`).
    public let remoteCommands: RemoteCommandRunner?

    /// The parts, built and wired; `bus` already started with its sinks.
    public init(
        bus: TerminalEventBus, metrics: TerminalMetrics, health: HealthState, door: DoorRelay?, journal: JournalParts?,
        modes: DoorModeController, doorMonitor: DoorMonitor?, doorInputs: DoorInputsService?, replica: ReplicaParts?,
        mqtt: MQTTParts?, metricsService: (any Service)?, heartbeat: Duration?, logger: Logger
    ) {
        self.bus = bus
        self.metrics = metrics
        self.health = health
        self.door = door
        self.forwarder = journal?.forwarder
        self.poster = journal?.poster
        self.modes = modes
        self.doorMonitor = doorMonitor
        self.doorInputs = doorInputs
        self.replica = replica
        self.mqtt = mqtt
        remoteCommands = replica.flatMap { replica in
            guard replica.sync.push else { return nil }
            let settings = replica.keeper.settings
            return RemoteCommandRunner(
                terminalID: settings.terminalID, trust: settings.trust, directory: (settings.path as NSString).deletingLastPathComponent,
                relay: door, modes: modes, bus: bus, logger: logger)
        }
        self.metricsService = metricsService
        self.heartbeat = heartbeat
        self.logger = logger
    }

    /// Makes the door follow the replica it holds (the site's mode, the unlock schedule):
    /// before the first frame; each sync then updates it.
    public func followHeldReplica() async {
        guard let replica else { return }
        await ReplicaSyncService.follow(replica.keeper.held?.replica, modes: modes)
    }

    /// How long a stopping terminal tries to forward what it journaled.
    public static let drainLimit: Duration = .seconds(2)

    /// Background services to run in the service group (metrics endpoint, forwarder).
    public var services: [any Service] {
        var list: [any Service] = []
        if let metricsService { list.append(metricsService) }
        if let forwarder { list.append(ForwarderService(forwarder: forwarder)) }
        if forwarder != nil, let heartbeat { list.append(HeartbeatService(bus: bus, interval: heartbeat)) }
        if let doorInputs { list.append(doorInputs) }
        if let replica {
            list.append(ReplicaSyncService(loop: replica.sync, modes: modes, commands: remoteCommands))
            list.append(UnlockScheduleService(modes: modes))
        }
        if let mqtt { list.append(MQTTService(parts: mqtt)) }
        return list
    }

    /// Door off first, then the stop event, which every sink gets after all the events
    /// before it, then connections closed.
    public func shutdown() async {
        door?.shutdown()
        bus.publish(.stopping)
        await bus.finish()
        if let forwarder, await !forwarder.drain(within: DaemonServices.drainLimit) {
            logger.notice("some journal records were not forwarded before stopping; they stay queued for the next start")
        }
        await poster?.shutdown()
        await replica?.sync.client.shutdown()
    }
}

/// The journal's forwarding: the forwarder and the signed poster it sends with (nil without
/// `events:`).
public struct JournalParts: Sendable {
    public let forwarder: EventForwarder?
    public let poster: SignedPoster?

    public init(forwarder: EventForwarder?, poster: SignedPoster?) {
        self.forwarder = forwarder
        self.poster = poster
    }
}

/// The parts of `verifier.offline.mode: fallback`: the keeper of the replica file and the
/// loop that keeps it fresh.
public struct ReplicaParts: Sendable {
    public let keeper: ReplicaKeeper
    public let sync: ReplicaSyncLoop

    public init(keeper: ReplicaKeeper, sync: ReplicaSyncLoop) {
        self.keeper = keeper
        self.sync = sync
    }
}

/// A terminal's Home Assistant link (`mqtt:`): the broker connection and the bridge that
/// reads the terminal's events.
public struct MQTTParts: Sendable {
    public let link: MQTTLink
    public let bridge: HomeAssistantBridge

    public init(link: MQTTLink, bridge: HomeAssistantBridge) {
        self.link = link
        self.bridge = bridge
    }

    /// `/healthz`'s line: `mqtt connected (broker:8883)`.
    public var healthLine: String {
        "mqtt \(link.connection) (\(link.settings.endpoint))"
    }
}
