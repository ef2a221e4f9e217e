import ArgumentParser
import DoorAssembly
import DoorConfig
import Foundation
import KioskPadCommandLine
import KioskPadConfig
import KioskPadEndpoints
import Logging

/// `kioskpad simulate`: laptop mode; the keyboard is the keypad and the terminal the display.
struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Run the terminal on this computer: keyboard as keypad, terminal as display.",
        discussion: """
            Keys: 0-9 digits; Backspace or * erase one; Enter or # submit (and dismiss a \
            result); Esc cancel; ? help ("forgot PIN"); Ctrl-C quit. With no options: a \
            4-digit masked PIN checked by a built-in demo verifier (PIN 1234). When stdin \
            is not a terminal, keys are read from it and the command exits once the last \
            attempt's result has been shown: printf '1234' | kioskpad simulate --display plain
            """
    )

    @Option(name: .long, help: "Config file (YAML). Its keypad section is ignored: the keyboard is the keypad.")
    var config: String?

    @Option(name: .long, help: "Display: ansi (a panel redrawn in place) or plain (each frame as text, then ----).")
    var display: DisplayChoice?

    @Option(name: .long, help: "Verifier endpoint (e.g. http://127.0.0.1:8787/verify); overrides the config's verifier.")
    var verifier: String?

    @Option(name: .long, help: "File holding the verifier's Standard Webhooks secret (whsec_...), to sign requests to --verifier.")
    var verifierSecretFile: String?

    @Option(name: .long, help: "Log level on stderr: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .warning

    func validate() throws {
        if verifierSecretFile != nil && verifier == nil {
            throw ValidationError("--verifier-secret-file needs --verifier URL")
        }
        if let verifier, let problem = VerifierURL.problem(verifier, allowInsecureHTTP: false) {
            throw ValidationError("--verifier: \(problem)")
        }
    }

    enum DisplayChoice: String, ExpressibleByArgument, CaseIterable {
        case ansi
        case plain

        /// The config's driver this option stands for.
        var driver: DisplayDriverKind { self == .plain ? .plain : .ansi }
    }

    func run() async throws {
        LoggingSetup.bootstrap(level: logLevel)
        var configuration: KioskPadConfiguration
        if let config {
            configuration = try ConfigLoader.load(path: config)
        } else {
            configuration = .simulatedDefault()
        }
        if let verifier {
            configuration.verifier = .http(HTTPVerifierConfiguration(url: verifier, secret: verifierSecretFile.map { .file($0) }))
        }
        // The terminal is the display: keep the configured geometry (preview a 16x2 LCD),
        // but draw it with a terminal driver.
        if let display {
            configuration.display.driver = display.driver
        } else if configuration.display.driver == .hd44780 {
            configuration.display.driver = .ansi
        }
        // A terminal has no backlight: a key that would only wake it is typed here.
        if configuration.display.driver != .hd44780 { configuration.display.backlightTimeout = nil }
        // The journal, event forwarding and metrics run here too when the config asks for
        // them (state_dir, events, metrics); the door relay and feedback outputs do not.
        let logger = Logger(label: "kioskpad.simulate")
        let terminal = try TerminalAssembly.simulatedTerminal(configuration, logger: logger) { port in
            logger.notice("metrics on http://127.0.0.1:\(port)/metrics")
        }
        if configuration.verifier == .demo {
            writeLine("demo PIN: \(TerminalAssembly.demoPIN)")
        }
        try await terminal.run(signals: [.sigterm, .sigint, .sighup], logger: logger)
    }
}
