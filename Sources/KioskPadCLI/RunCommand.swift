import ArgumentParser
import KeypadCore
import KeypadDisplay
import KeypadHAL
import KeypadVerifier
import KioskPadAssembly
import KioskPadConfig
import KioskPadController
import KioskPadDaemon
import Logging

/// `kioskpad run`: the door/kiosk terminal daemon on real hardware.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the door/kiosk terminal: GPIO keypad, display, verifier, door relay, journal and metrics from a config file.",
        discussion: """
            Stops cleanly on SIGTERM or SIGINT (exit 0), switching the door relay off first. Under \
            systemd (Type=notify) it reports READY=1 and feeds the watchdog while the entry loop \
            answers. A keypad line that the chip does not have stops it at start (exit 1); a keypad \
            that is missing or fails is reported and reopened with back-off (1 s doubling to 30 s); \
            a display that fails is retried in the background.
            """
    )

    @Option(help: "Config file (YAML) with keypad driver: gpio.")
    var config: String

    @Option(help: "Override display.driver: ansi or plain.")
    var display: SimulateCommand.DisplayChoice?

    @Option(help: "Log level on stderr: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .notice

    func run() async throws {
        LoggingSetup.bootstrap(level: logLevel)
        let logger = Logger(label: "kioskpad.run")
        var configuration = try ConfigLoader.load(path: config)
        if let display { configuration.display.driver = display.driver }
        if !configuration.daemon.metricsConfigured { configuration.daemon.metrics = DaemonConfiguration.defaultMetrics }
        if configuration.verifier == .demo {
            throw KeyedError(
                key: "verifier.kind", message: "demo accepts PIN 1234 and is for `kioskpad simulate` only",
                fix: "use kind: local with a users_file")
        }
        let gpio = try KeypadAssembly.gpioConfiguration(configuration.keypad)
        let daemon = try DaemonServices(
            configuration: configuration,
            stateDirectory: configuration.daemon.stateDirectory ?? DaemonConfiguration.defaultStateDirectory,
            outputs: true, logger: logger)
        let verifier: any Verifier
        let displayDriver: any DisplayDriver
        do {
            verifier = try TerminalAssembly.verifier(for: configuration.verifier, logger: logger)
            displayDriver = try TerminalAssembly.display(for: configuration.display) { message in
                logger.warning("\(message)")
            }
        } catch {
            daemon.door?.shutdown()
            throw error
        }
        let source: RetryingKeySource
        do {
            source = try KeypadAssembly.retryingSource(gpio, bus: daemon.bus, logger: logger)
        } catch {
            daemon.door?.shutdown()
            throw error
        }
        let controller = KioskController(
            entry: configuration.entry, composer: TerminalAssembly.composer(for: configuration.display),
            display: displayDriver, verifier: verifier, source: source,
            terminalID: configuration.terminalID, logger: logger, bus: daemon.bus)
        logger.notice("terminal ready", metadata: ["terminal": "\(configuration.terminalID)"])
        try await TerminalRunner.run(controller: controller, daemon: daemon, signals: [.sigterm, .sigint], logger: logger)
        await displayDriver.close()
        await verifier.shutdown()
        logger.notice("terminal stopped")
    }
}
