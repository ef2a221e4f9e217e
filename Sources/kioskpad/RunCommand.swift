import ArgumentParser
import KeypadDisplay
import KeypadHAL
import KeypadVerifier
import KioskPad
import KioskPadConfig
import KioskPadDaemon
import Logging

/// `kioskpad run`: the door/kiosk terminal daemon on real hardware.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the door/kiosk terminal: GPIO keypad, display, verifier, door relay, journal and metrics from a config file.",
        discussion: """
            Stops cleanly on SIGTERM or SIGINT (exit 0), switching the door relay off first. Under \
            systemd (Type=notify) it reports READY=1 and feeds the watchdog while the keypad and the \
            entry loop work. A keypad that fails is reported and reopened; a display that fails is \
            retried in the background.
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
            throw UsageError(description: "verifier.kind: demo accepts PIN 1234 and is for `kioskpad simulate` only; use kind: local with a users_file")
        }
        let gpio: GPIOKeypadConfiguration
        let verifier: any Verifier
        let displayDriver: any DisplayDriver
        let daemon: DaemonServices
        do {
            gpio = try KeypadAssembly.gpioConfiguration(configuration.keypad)
            daemon = try DaemonServices(
                configuration: configuration,
                stateDirectory: configuration.daemon.stateDirectory ?? DaemonConfiguration.defaultStateDirectory,
                outputs: true, logger: logger)
            verifier = try TerminalAssembly.verifier(for: configuration.verifier, logger: logger)
            displayDriver = try TerminalAssembly.display(for: configuration.display) { message in
                logger.warning("\(message)")
            }
        } catch let error as AssemblyError {
            throw UsageError(description: error.description)
        } catch let error as DaemonServices.StartError {
            throw RuntimeFailure(description: error.description)
        }
        // Fail fast on a wrong chip or line, so an installer sees the error at once.
        let first: MatrixScanLoop
        do {
            first = try KeypadAssembly.scanLoop(gpio)
        } catch let error as GPIOKeypadError {
            daemon.door?.shutdown()
            throw RuntimeFailure(description: error.description)
        }
        let sinks = daemon.sinks
        let pending = FirstLoop(first)
        let source = RetryingKeySource(
            open: { failure in
                let loop = try pending.take() ?? KeypadAssembly.scanLoop(gpio)
                return MatrixKeySource(loop: loop, diagnostics: { event in
                    let fault: TerminalEvent?
                    switch event {
                    case .ghosting(let keys): fault = .keypadFault(kind: "ghosting", detail: "\(keys.count) keys form a rectangle")
                    case .stuck(let key): fault = .keypadFault(kind: "stuck", detail: "row \(key.row) column \(key.column)")
                    default: fault = nil
                    }
                    if let fault {
                        logger.warning("keypad fault", metadata: ["fault": "\(fault)"])
                        Task { for sink in sinks { await sink.handle(fault) } }
                    }
                }, failure: failure)
            },
            report: { ok, problem in
                if ok {
                    logger.notice("keypad recovered")
                } else {
                    logger.error("keypad failed; retrying", metadata: ["problem": "\(problem ?? "")"])
                }
                for sink in sinks { await sink.handle(.keypadHealth(ok: ok)) }
            })
        let controller = KioskController(
            entry: configuration.entry, composer: TerminalAssembly.composer(for: configuration.display),
            display: displayDriver, verifier: verifier, source: source,
            terminalID: configuration.terminalID, logger: logger, sinks: daemon.sinks)
        logger.notice("terminal ready", metadata: ["terminal": "\(configuration.terminalID)"])
        try await TerminalRunner.run(controller: controller, daemon: daemon, signals: [.sigterm, .sigint], logger: logger)
        await displayDriver.close()
        await verifier.shutdown()
        logger.notice("terminal stopped")
    }
}

import Synchronization

/// Hands the scan loop opened at start to the first keypad open, once.
final class FirstLoop: @unchecked Sendable {
    // @unchecked: the loop is handed over exactly once, under the lock.
    private let slot: Mutex<Bool>
    private let loop: MatrixScanLoop

    init(_ loop: MatrixScanLoop) {
        self.loop = loop
        slot = Mutex(true)
    }

    func take() -> MatrixScanLoop? {
        slot.withLock { available in
            defer { available = false }
            return available ? loop : nil
        }
    }
}
