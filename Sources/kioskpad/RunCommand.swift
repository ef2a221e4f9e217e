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
        // A line the chip does not have stops start-up at once (a retry cannot fix it). A
        // missing chip, a busy line or a permission may clear: they are logged now, and the
        // keypad is reopened with back-off while the rest of the terminal runs.
        var first: MatrixScanLoop?
        do {
            first = try KeypadAssembly.scanLoop(gpio)
        } catch let error as GPIOKeypadError where error.needsConfigChange {
            daemon.door?.shutdown()
            throw RuntimeFailure(description: error.description)
        } catch let error as GPIOKeypadError {
            logger.error("keypad unavailable at start; retrying with back-off", metadata: ["problem": "\(error)"])
        }
        let sinks = daemon.sinks
        let pending = FirstLoop(first)
        let source = RetryingKeySource(
            open: { failure in
                let loop = try pending.take() ?? KeypadAssembly.scanLoop(gpio)
                return MatrixKeySource(loop: loop, diagnostics: { event in
                    let fault: (kind: String, detail: String)?
                    switch event {
                    case .ghosting(let keys): fault = ("ghosting", "\(keys.count) keys form a rectangle")
                    case .stuck(let key): fault = ("stuck", "row \(key.row) column \(key.column)")
                    default: fault = nil
                    }
                    if let fault {
                        logger.warning("keypad fault", metadata: ["kind": "\(fault.kind)", "detail": "\(fault.detail)"])
                        Task { for sink in sinks { await sink.handle(.keypadFault(kind: fault.kind, detail: fault.detail)) } }
                    }
                }, failure: failure, started: {
                    logger.notice("keypad ready", metadata: [
                        "chip": "\(gpio.chip)", "matrix": "\(gpio.rows.count)x\(gpio.columns.count)",
                        "library": "\(GPIOBackendFactory.library)",
                    ])
                })
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

/// Hands the scan loop opened at start (if it opened) to the first keypad open, once.
final class FirstLoop: @unchecked Sendable {
    // @unchecked: the loop is handed over exactly once, under the lock.
    private let slot: Mutex<Bool>
    private let loop: MatrixScanLoop?

    init(_ loop: MatrixScanLoop?) {
        self.loop = loop
        slot = Mutex(loop != nil)
    }

    func take() -> MatrixScanLoop? {
        slot.withLock { available in
            defer { available = false }
            return available ? loop : nil
        }
    }
}
