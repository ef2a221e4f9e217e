import ArgumentParser
import DoorAssembly
import DoorConfig
import DoorController
import DoorTools
import Foundation
import KioskPadCommandLine
import KioskPadConfig
import KioskPadCore
import TerminalIO

/// `kioskpad display`: display tools.
struct DisplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "display", abstract: "Display tools.", subcommands: [DisplayTestCommand.self])
}

/// `kioskpad display test`: shows test patterns and every frame type, for installers.
struct DisplayTestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Show a test pattern and every frame type (prompt, slots, verifying, granted, denied, locked...) to check wiring and contrast.",
        discussion:
            "Prints the name of each frame as it is shown. On an LCD, turn the backpack's contrast screw until the 'blocks' frame shows solid blocks and the text frames are crisp."
    )

    @Option(help: "Config file (YAML) with a display section.")
    var config: String

    @Option(help: "Milliseconds each frame stays up.")
    var pauseMs = 1500

    @Option(help: "Override display.driver: ansi or plain.")
    var display: SimulateCommand.DisplayChoice?

    func validate() throws {
        guard (0...60_000).contains(pauseMs) else { throw ValidationError("--pause-ms \(pauseMs) is out of range 0...60000") }
    }

    func run() async throws {
        // No service lifecycle here: Ctrl-C must still show the cursor again (ANSI driver).
        TerminalRestorer.shared.restoreOnTerminatingSignals()
        var configuration = try ConfigLoader.load(path: config)
        if let display { configuration.display.driver = display.driver }
        try await DisplayCheck.run(configuration.display, pause: .milliseconds(pauseMs), print: { writeLine($0) })
    }
}
