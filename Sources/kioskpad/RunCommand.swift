import ArgumentParser
import KeypadDisplay
import KeypadHAL
import KeypadVerifier
import KioskPad
import KioskPadConfig
import Logging
import Synchronization

/// `kioskpad run`: the door/kiosk terminal on real hardware.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the door/kiosk terminal: GPIO keypad, display and verifier from a config file.",
        discussion: "Stops cleanly on SIGTERM or SIGINT (exit 0). A keypad that fails while running stops it with exit 1."
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
        if let display { configuration.display.driver = display == .plain ? .plain : .ansi }
        if configuration.verifier == .demo {
            throw UsageError(description: "verifier.kind: demo accepts PIN 1234 and is for `kioskpad simulate` only; use kind: local with a users_file")
        }
        let verifier: any Verifier
        let displayDriver: any DisplayDriver
        let loop: MatrixScanLoop
        do {
            verifier = try TerminalAssembly.verifier(for: configuration.verifier, logger: logger)
            displayDriver = try TerminalAssembly.display(for: configuration.display) { message in
                logger.warning("\(message)")
            }
            loop = try KeypadAssembly.scanLoop(try KeypadAssembly.gpioConfiguration(configuration.keypad))
        } catch let error as AssemblyError {
            throw UsageError(description: error.description)
        } catch let error as GPIOKeypadError {
            throw RuntimeFailure(description: error.description)
        }
        let failure = FailureNote()
        let source = MatrixKeySource(
            loop: loop,
            diagnostics: { event in
                switch event {
                case .ghosting(let keys): logger.warning("keypad ghosting: \(keys.count) keys form a rectangle; ignored until one is released")
                case .stuck(let key): logger.warning("keypad stuck key at row \(key.row) column \(key.column); ignored until released")
                default: break
                }
            },
            failure: { error in
                failure.set("\(error)")
                logger.error("keypad failed", metadata: ["error": "\(error)"])
            })
        let controller = KioskController(
            entry: configuration.entry, composer: TerminalAssembly.composer(for: configuration.display),
            display: displayDriver, verifier: verifier, source: source,
            terminalID: configuration.terminalID, logger: logger)
        logger.notice("terminal ready", metadata: ["terminal": "\(configuration.terminalID)"])
        let stoppedBySignal = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                _ = await SignalWaiter.wait()
                return true
            }
            group.addTask {
                _ = await controller.run()
                return false
            }
            let first = await group.next() ?? true
            group.cancelAll()
            return first
        }
        _ = source.thread.stopAndCollect()
        await displayDriver.close()
        await verifier.shutdown()
        if !stoppedBySignal {
            throw RuntimeFailure(description: failure.message ?? "the keypad stopped")
        }
        logger.notice("terminal stopped")
    }
}

/// The first failure message, set from the scan thread.
final class FailureNote: Sendable {
    private let text = Mutex<String?>(nil)
    func set(_ message: String) { text.withLock { if $0 == nil { $0 = message } } }
    var message: String? { text.withLock { $0 } }
}
