import ArgumentParser
import DoorAssembly
import KioskPadCore

/// The `kioskpad` command: a door/kiosk PIN terminal for a matrix keypad and a text display.
struct KioskPadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kioskpad",
        abstract: "Door and kiosk PIN terminal for a matrix keypad and a small text display.",
        discussion: "Exit codes: 0 normal, 2 bad usage or config, 1 runtime failure.",
        version: "kioskpad \(KioskPadVersion.version), built for \(KeypadAssembly.gpioLibrary)",
        subcommands: [
            SimulateCommand.self, RunCommand.self, KeytestCommand.self, DoorCommand.self, DisplayCommand.self, VerifierForwardCommand.self,
            CredentialsCommand.self, ConfigCommand.self, PINCommand.self, OSDPCommand.self, PairCommand.self,
        ]
    )
}
