import ArgumentParser
import DoorAssembly
import DoorConfig
import DoorController
import DoorTools
import Foundation
import KioskPadAccess
import KioskPadCommandLine
import KioskPadConfig
import KioskPadCore
import KioskPadEndpoints

/// `kioskpad config`: config file tools.
struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config", abstract: "Config file tools.", subcommands: [ConfigCheckCommand.self])
}

/// `kioskpad config check FILE`: prints `ok` (exit 0) or one line per problem (exit 2).
struct ConfigCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate a config file: prints ok, or one line per problem naming the key path (exit 2).",
        discussion: """
            Environment overrides (KIOSKPAD__SECTION__KEY=value) are applied and checked too. \
            With --with-files it also reads what `run` reads at start: the OSDP readers' key files, the users file (it must \
            list at least one user), secret and token files, and TLS files, so it fails exactly \
            where the first start would, and the state directory (state_dir): an error when it \
            cannot be written, a warning when it is in memory (tmpfs) or on an overlay, where the \
            journal would vanish at the next boot. Systemd credentials (*_credential) are read only when \
            $CREDENTIALS_DIRECTORY is set, as it is under systemd.
            """
    )

    @Argument(help: "The YAML config file to check.")
    var file: String

    @Flag(help: "Also read the files the config names (users file, secrets, certificates) and check state_dir, as `run` does at start.")
    var withFiles = false

    func run() async throws {
        let configuration = try ConfigLoader.load(path: file)
        if withFiles {
            try await checkFiles(configuration)
        }
        print("ok")
    }

    private func checkFiles(_ configuration: KioskPadConfiguration) async throws {
        var verifierConfiguration = configuration.verifier
        let credentials = ProcessInfo.processInfo.environment["CREDENTIALS_DIRECTORY"] != nil
        if case .http(var http) = verifierConfiguration, !credentials {
            if case .credential(let name) = http.secret {
                writeLine("note: verifier.secret_credential '\(name)' is read at start from $CREDENTIALS_DIRECTORY (systemd LoadCredential=); not checked here")
                http.secret = nil
            }
            if case .credential(let name) = http.token {
                writeLine("note: verifier.token_credential '\(name)' is read at start from $CREDENTIALS_DIRECTORY; not checked here")
                http.token = nil
            }
            verifierConfiguration = .http(http)
        }
        let verifier = try TerminalAssembly.verifier(for: verifierConfiguration)
        await verifier.shutdown()
        if let osdp = configuration.keypad.osdp { _ = try KeypadAssembly.osdpReaders(osdp) }  // each key file read as `run` reads it
        let stateDirectory = configuration.daemon.stateDirectory ?? DaemonConfiguration.defaultStateDirectory
        for finding in StateDirectoryCheck.check(stateDirectory) {
            if finding.isError { throw KeyedError(key: "state_dir", message: finding.text) }
            FileHandle.standardError.write(Data("warning: state_dir: \(finding.text)\n".utf8))
        }
        if let source = configuration.daemon.events?.secret, credentials || !isCredential(source) {
            _ = try WebhookSecret(configured: source, key: "events.secret")
        }
    }

    private func isCredential(_ source: SecretSource) -> Bool {
        if case .credential = source { return true }
        return false
    }
}
