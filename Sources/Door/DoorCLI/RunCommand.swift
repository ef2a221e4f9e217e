import ArgumentParser
import DoorAssembly
import DoorConfig
import KioskPadCommandLine
import KioskPadConfig
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
            a display that fails is retried in the background. SIGHUP (systemctl reload kioskpad) \
            re-reads the users file and display texts; a bad file is refused and the old one kept.
            """
    )

    @Option(help: "Config file (YAML) with a keypad (driver: gpio, evdev or wiegand), display and verifier.")
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
        if case .unpaired(let sites) = configuration.site {
            try await UnpairedDoorAssembly.waitForAdoption(configuration, sites: sites, logger: logger)
            // Adopted: the same process starts again from its config, now paired (same PID, so
            // systemd's notify socket and watchdog follow it).
            SelfExecutable.restart()
        }
        let terminal = try TerminalAssembly.doorTerminal(configuration, configPath: config, logger: logger)
        logger.notice("terminal ready", metadata: ["terminal": "\(configuration.terminalID)"])
        try await terminal.run(signals: [.sigterm, .sigint], reloadingFrom: config, logger: logger)
        if terminal.restart.isRequested {
            // Settings from the site that need a fresh start: stopped in order, now again in place.
            logger.notice("terminal starting again with the site's settings")
            SelfExecutable.restart()
        }
        logger.notice("terminal stopped")
    }
}
