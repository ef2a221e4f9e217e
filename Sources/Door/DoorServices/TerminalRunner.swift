import DoorController
import Logging
import ServiceLifecycle
import UnixSignals

/// Runs a terminal under swift-service-lifecycle: the controller, the daemon's background
/// services and the systemd watchdog in one service group that stops cleanly on `signals`
/// (the only signal handling in the process). The door relay is switched off the moment a
/// shutdown begins, before anything else stops. Tells systemd READY=1 once running and
/// STOPPING=1 on the way out.
public enum TerminalRunner {
    public static func run(
        controller: KioskController, daemon: DaemonServices, notifier: SystemdNotifier = SystemdNotifier(),
        signals: [UnixSignal], reload: (@Sendable () async -> Void)? = nil, also extra: [any Service] = [], logger: Logger
    ) async throws {
        let controllerService = ControllerService(controller: controller, daemon: daemon, notifier: notifier)
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: controllerService, successTerminationBehavior: .gracefullyShutdownGroup, failureTerminationBehavior: .gracefullyShutdownGroup)
        ]
        services += daemon.services.map { .init(service: $0) }
        // An extra service that ends (the check-in asking for a restart in place) stops the door in order.
        services += extra.map { .init(service: $0, successTerminationBehavior: .gracefullyShutdownGroup) }
        if let reload { services.append(.init(service: ReloadService(reload: reload))) }
        if let interval = notifier.watchdogInterval {
            services.append(
                .init(service: WatchdogService(notifier: notifier, interval: interval, health: daemon.health, controller: controller, logger: logger)))
        }
        var configuration = ServiceGroupConfiguration(services: services, logger: logger)
        configuration.gracefulShutdownSignals = signals
        configuration.logger = logger
        let group = ServiceGroup(configuration: configuration)
        do {
            try await group.run()
        } catch {
            daemon.door?.shutdown()
            await daemon.shutdown()
            throw error
        }
        await daemon.shutdown()
    }
}

/// The entry loop as a service: READY=1 when it starts; on graceful shutdown the door goes
/// off at once, then the loop is cancelled.
struct ControllerService: Service {
    let controller: KioskController
    let daemon: DaemonServices
    let notifier: SystemdNotifier

    func run() async throws {
        notifier.ready(status: "terminal ready; \(daemon.health.summary)")
        await withGracefulShutdownHandler {
            await cancelWhenGracefulShutdown {
                _ = await controller.run()
            }
        } onGracefulShutdown: {
            daemon.door?.shutdown()
            notifier.stopping()
        }
    }
}

/// Pings the systemd watchdog at half its interval, each time only after proof that the door
/// works (``KioskController/heartbeat(within:)``): the entry loop reached a probe (so it is not
/// stuck drawing the display) and the GPIO keypad's scan thread went round its loop. A hung
/// loop or scan thread gets the unit restarted. A keypad that is down is not a reason to
/// restart: it is reopened in-process with back-off (``RetryingKeySource``) while the relay,
/// journal and metrics keep working; it shows in the status line and `/healthz`.
struct WatchdogService: Service {
    /// How long each part of the proof may take: well within the half interval between pings
    /// (the unit's `WatchdogSec=30` pings every 15 s).
    static func proofLimit(interval: Duration) -> Duration { min(.seconds(5), interval / 3) }

    let notifier: SystemdNotifier
    let interval: Duration
    let health: HealthState
    let controller: KioskController
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                switch await controller.heartbeat(within: WatchdogService.proofLimit(interval: interval)) {
                case .alive:
                    notifier.watchdog()
                case .notRunning:
                    break
                case .loopStuck:
                    logger.error("watchdog not fed: the entry loop does not answer (stuck drawing the display or on an attempt)")
                case .keypadStuck:
                    logger.error("watchdog not fed: the keypad's scan thread does not go round its loop")
                }
                notifier.status(health.summary)
                try? await Task.sleep(for: interval)
            }
        }
    }
}
