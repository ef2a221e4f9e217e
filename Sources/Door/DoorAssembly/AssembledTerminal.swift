import DoorConfig
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

extension TerminalAssembly {
    /// `kioskpad run`: the keypad (GPIO matrix, input device, Wiegand or OSDP readers; reopened with back-off), the configured display and
    /// verifier, the door relay and feedback outputs, journal, events and metrics. The door
    /// relay is off before anything can fail, and off again if anything after it does.
    /// Built in this order: the keypad's config checked (before any line is requested), the
    /// OSDP readers' command queue (fed by the feedback and the display, sent by the readers'
    /// key source), the services (``DaemonServices``, which state their own order), then the
    /// verifier with its offline fallback, the display and the key source.
    /// `configPath`: the file the configuration was read from; an adopted door checks the
    /// site's settings against it.
    public static func doorTerminal(_ configuration: KioskPadConfiguration, configPath: String? = nil, logger: Logger) throws -> AssembledTerminal {
        if configuration.verifier == .demo {
            throw KeyedError(
                key: "verifier.kind", message: "demo accepts PIN 1234 and is for `kioskpad simulate` only",
                fix: "use kind: local with a users_file")
        }
        let keypad = configuration.keypad
        let gpio = keypad.driver == .gpio || keypad.driver == .terminal ? try keypad.gpioSection() : nil
        let osdpCommands = keypad.driver == .osdp ? OSDPCommandQueue() : nil
        let services = try DaemonServices(
            configuration: configuration,
            stateDirectory: configuration.daemon.stateDirectory ?? DaemonConfiguration.defaultStateDirectory,
            outputs: true, osdpCommands: osdpCommands, logger: logger)
        do {
            let verifier = try TerminalAssembly.verifier(
                for: configuration.verifier, clockTrust: configuration.daemon.clockTrust, replica: services.replica, logger: logger)
            let display = try TerminalAssembly.display(for: configuration.display, osdpCommands: osdpCommands) { logger.warning("\($0)") }
            let keys = try KeypadAssembly.doorSource(
                keypad, gpio: gpio, osdpCommands: osdpCommands, entry: configuration.entry, bus: services.bus, logger: logger)
            let source: any KeySource =
                try configuration.cardReader.map {
                    MergedKeySource(keys, try KeypadAssembly.retryingCardReaderSource($0, logger: logger))
                } ?? keys
            var made = terminal(configuration, source: source, display: display, verifier: verifier, services: services, logger: logger)
            // An adopted door checks in with its site (a rotation of its secret, its settings).
            if case .paired(_, let terminalID) = configuration.site,
                let online = (verifier as? HTTPVerifier) ?? (verifier as? OfflineFallbackVerifier)?.onlineVerifier
            {
                let state = configuration.daemon.stateDirectory ?? DaemonConfiguration.defaultStateDirectory
                let settings = configPath.map {
                    SiteSettingsApplier(
                        configPath: $0, configuration: configuration, stateDirectory: state, controller: made.controller, relay: services.door)
                }
                // One trust for the check-in and the offline replica: a key a check-in brings holds for both at once.
                let trust =
                    services.replica?.keeper.settings.trust
                    ?? DoorSite.replicaKeys(stateDirectory: state).flatMap { keys in
                        (try? ReplicaPublicKey(parsing: keys.current)).map {
                            ReplicaTrust(current: $0, next: keys.next.flatMap { try? ReplicaPublicKey(parsing: $0) })
                        }
                    }
                made.also.append(
                    SiteCheckInService(
                        verifier: online, terminalID: terminalID, secretFile: state + "/" + DoorSite.secretFile,
                        siteFile: state + "/" + DoorSite.siteFile, settings: settings, trust: trust,
                        secretReplaced: { [sync = services.replica?.sync.client, poster = services.poster] old, next in
                            sync?.replaceSecret(next)
                            // Events signed with the door's own secret (events.secret_file: its site.secret) follow it.
                            if poster?.replaceSecret(old, with: next) == true { logger.notice("events are signed with the door's new secret") }
                        }, restart: made.restart, nudge: services.replica?.sync.checkIns ?? CheckInNudge(), logger: logger))
            }
            return made
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
        let display = try TerminalAssembly.display(for: configuration.display)
        let services = try DaemonServices(
            configuration: configuration, stateDirectory: configuration.daemon.stateDirectory, outputs: false,
            logger: logger, metricsRunning: metricsRunning)
        let verifier = try TerminalAssembly.verifier(
            for: configuration.verifier, clockTrust: configuration.daemon.clockTrust, replica: services.replica,
            fallbackLogger: logger)
        return terminal(configuration, source: TerminalKeySource(), display: display, verifier: verifier, services: services, logger: logger)
    }

    private static func terminal(
        _ configuration: KioskPadConfiguration, source: any KeySource, display: any DisplayDriver, verifier: any Verifier,
        services: DaemonServices, logger: Logger
    ) -> AssembledTerminal {
        let controller = KioskController(
            entry: configuration.entry, composer: composer(for: configuration.display), display: display,
            verifier: verifier, source: source, terminalID: configuration.terminalID, logger: logger, bus: services.bus,
            tamperStopsEntry: configuration.daemon.tamper?.stopEntry ?? false,
            backlightTimeout: configuration.display.backlightTimeout)
        return AssembledTerminal(controller: controller, services: services, display: display, verifier: verifier)
    }
}
