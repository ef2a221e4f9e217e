import ArgumentParser
import DoorAssembly
import DoorConfig
import DoorTools
import KioskPadCommandLine
import KioskPadConfig

/// `kioskpad osdp`: tools for OSDP readers.
struct OSDPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "osdp", abstract: "OSDP readers: give a reader its Secure Channel key.", subcommands: [OSDPKeySetCommand.self])
}

/// `kioskpad osdp keyset`: a reader in install mode gets its own key.
struct OSDPKeySetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keyset",
        abstract: "Give a reader in install mode its own Secure Channel key (osdp_KEYSET through a session with the default key).",
        discussion: """
            Stop kioskpad first: this command uses the line of the config's keypad section (driver: osdp). With --generate, a \
            new random key is written to --key-file (mode 600; an existing file is never overwritten); without it, the key \
            already in --key-file is sent. The key is never printed. Then set keypad.readers[N].scbk_file to that file.
            """)

    @Option(help: "Config file with a keypad section of driver: osdp (its device and baud are used).")
    var config: String

    @Option(help: "The reader's OSDP address (0...126).")
    var address: Int

    @Option(name: .customLong("key-file"), help: "The file of the reader's new key: 32 hex digits, mode 600.")
    var keyFile: String

    @Flag(help: "Make a new random key and write it to --key-file first.")
    var generate = false

    func run() async throws {
        try await OSDPKeySetup.run(
            configuration: try ConfigLoader.load(path: config), address: address, keyFile: keyFile, generate: generate, print: { writeLine($0) })
    }
}
