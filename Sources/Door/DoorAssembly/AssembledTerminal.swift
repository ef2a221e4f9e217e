import DoorController
import DoorOSDP
import DoorOfflineReplica
import DoorServices
import DoorVerifierClient
import KeypadDisplay
import KeypadHAL
import KioskPadAccess
import KioskPadConfig
import KioskPadCore
import Logging
import UnixSignals

/// A terminal built from a configuration, ready to run: the controller with its key
/// source, display and verifier, and the services around it (relay, journal, metrics).
/// `kioskpad run` and `kioskpad simulate` differ only in which of these they ask for.
public struct AssembledTerminal: Sendable {
    public let controller: KioskController
    public let services: DaemonServices
    let display: any DisplayDriver
    public let verifier: any Verifier

    /// Runs until one of `signals` or the end of scripted input; the door goes off first on
    /// the way out, then the display and the verifier client are closed. With
    /// `reloadingFrom` (the config file's path), SIGHUP reloads the users file and texts.
    public func run(signals: [UnixSignal], reloadingFrom configPath: String? = nil, logger: Logger) async throws {
        // `start` is the journal's first record of a run: before the mode the replica holds.
        services.bus.publish(.started)
        if let monitor = services.doorMonitor {
            let controller = self.controller
            await monitor.onTamperChange { await controller.tamperChanged($0) }
        }
        // The mode the held replica says, before the first frame (each sync then updates it).
        if let replica = services.replica { await ReplicaSyncService.follow(replica.keeper.held?.replica, modes: services.modes) }
        let shown = self.controller
        await services.modes.onShow { await shown.modeChanged($0) }
        if let mqtt = services.mqtt {
            let controller = self.controller
            await mqtt.bridge.onRemoteCode { await controller.remoteCode($0) }
        }
        do {
            var reload: (@Sendable () async -> Void)?
            if let configPath {
                let terminal = self
                reload = { await terminal.reload(from: configPath, logger: logger) }
            }
            try await TerminalRunner.run(controller: controller, daemon: services, signals: signals, reload: reload, logger: logger)
        } catch {
            await close()
            throw error
        }
        await close()
    }

    private func close() async {
        await display.close()
        await verifier.shutdown()
    }
}

extension TerminalAssembly {
    /// `kioskpad run`: the keypad (GPIO matrix, input device, Wiegand or OSDP readers; reopened with back-off), the configured display and
    /// verifier, the door relay and feedback outputs, journal, events and metrics. The door
    /// relay is off before anything can fail, and off again if anything after it does.
    public static func doorTerminal(_ configuration: KioskPadConfiguration, logger: Logger) throws -> AssembledTerminal {
        if configuration.verifier == .demo {
            throw KeyedError(
                key: "verifier.kind", message: "demo accepts PIN 1234 and is for `kioskpad simulate` only",
                fix: "use kind: local with a users_file")
        }
        let gpio =
            configuration.keypad.driver == .gpio || configuration.keypad.driver == .terminal
            ? try KeypadAssembly.gpioConfiguration(configuration.keypad) : nil
        let services = try DaemonServices(
            configuration: configuration,
            stateDirectory: configuration.daemon.stateDirectory ?? DaemonConfiguration.defaultStateDirectory,
            outputs: true, logger: logger)
        do {
            let verifier = try TerminalAssembly.verifier(for: configuration.verifier, clockTrust: configuration.daemon.clockTrust, logger: logger)
            let display = try TerminalAssembly.display(for: configuration.display, osdpCommands: services.osdpCommands) { logger.warning("\($0)") }
            let source: RetryingKeySource
            if let gpio {
                source = try KeypadAssembly.retryingSource(gpio, bus: services.bus, logger: logger)
            } else if let wiegand = configuration.keypad.wiegand {
                source = try KeypadAssembly.retryingWiegandSource(wiegand, entry: configuration.entry, bus: services.bus, logger: logger)
            } else if let osdp = configuration.keypad.osdp {
                source = try KeypadAssembly.retryingOSDPSource(
                    osdp, commands: services.osdpCommands ?? OSDPCommandQueue(), bus: services.bus, logger: logger)
            } else {
                guard let evdev = configuration.keypad.evdev else {
                    throw KeyedError(key: "keypad.device", message: "is required with driver: evdev")
                }
                source = try KeypadAssembly.retryingEvdevSource(evdev, bus: services.bus, logger: logger)
            }
            return terminal(configuration, source: source, display: display, verifier: verifier, services: services, logger: logger)
        } catch {
            services.door?.shutdown()
            throw error
        }
    }

    /// `kioskpad simulate`: this computer's keyboard (or piped stdin) as the keypad and its
    /// terminal as the display; the journal, events and metrics when the config asks for
    /// them; no GPIO outputs.
    public static func simulatedTerminal(
        _ configuration: KioskPadConfiguration, logger: Logger,
        metricsRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws -> AssembledTerminal {
        let verifier = try TerminalAssembly.verifier(for: configuration.verifier, clockTrust: configuration.daemon.clockTrust)
        let display = try TerminalAssembly.display(for: configuration.display)
        let services = try DaemonServices(
            configuration: configuration, stateDirectory: configuration.daemon.stateDirectory, outputs: false,
            logger: logger, metricsRunning: metricsRunning)
        return terminal(configuration, source: TerminalKeySource(), display: display, verifier: verifier, services: services, logger: logger)
    }

    private static func terminal(
        _ configuration: KioskPadConfiguration, source: any KeySource, display: any DisplayDriver, verifier: any Verifier,
        services: DaemonServices, logger: Logger
    ) -> AssembledTerminal {
        var verifier = verifier
        if let replica = services.replica, let online = verifier as? HTTPVerifier {
            verifier = OfflineFallbackVerifier(online: online, keeper: replica.keeper, logger: logger)
        }
        let controller = KioskController(
            entry: configuration.entry, composer: composer(for: configuration.display), display: display,
            verifier: verifier, source: source, terminalID: configuration.terminalID, logger: logger, bus: services.bus,
            tamperStopsEntry: configuration.daemon.tamper?.stopEntry ?? false,
            backlightTimeout: configuration.display.backlightTimeout)
        return AssembledTerminal(controller: controller, services: services, display: display, verifier: verifier)
    }
}
