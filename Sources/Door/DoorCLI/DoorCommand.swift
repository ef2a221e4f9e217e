import ArgumentParser
import DoorAssembly
import DoorConfig
import DoorTools
import KioskPadCommandLine
import KioskPadConfig

/// `kioskpad door`: door relay tools.
struct DoorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "door", abstract: "Door relay tools.", subcommands: [DoorOffCommand.self])
}

/// `kioskpad door off`: switches the relay (and the buzzer and LEDs) off and releases them.
struct DoorOffCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "off",
        abstract: "Switch the door relay, buzzer and LEDs off: request each line at its inactive level, then release it.",
        discussion: """
            kioskpad.service runs this before every start (ExecStartPre=) and after every stop \
            (ExecStopPost=), whatever ended the daemon: SIGKILL, a crash, the watchdog. Raspberry \
            Pi kernels keep a released output at its last level, so a relay that was on when the \
            daemon died stays on until something drives it off; this is that something. It reads \
            only door and feedback from the config, so a mistake elsewhere in the file does not \
            stop it. Exit 1 if a line could not be switched off (busy, missing chip).
            """
    )

    @Option(help: "Config file (YAML) with door.relay and optional feedback outputs.")
    var config: String

    func run() async throws {
        let outputs = try ConfigLoader.loadOutputs(path: config).outputLines
        guard !outputs.isEmpty else {
            writeLine("door off: \(config) configures no door.relay or feedback outputs; nothing to switch off")
            return
        }
        var failures: [String] = []
        for ((key, line), result) in zip(outputs, OutputLinesOff.switchOff(outputs)) {
            if let error = result.error {
                failures.append("\(error)")
            } else {
                writeLine("door off: \(key) (line \(line.line) on '\(line.chip)') is off and released")
            }
        }
        if !failures.isEmpty { throw RuntimeFailure(description: failures.joined(separator: "\n")) }
    }
}
