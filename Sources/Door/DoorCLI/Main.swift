import KioskPadCommandLine

/// Entry point of `kioskpad`, the door terminal's executable. `kioskpad verifier ...` is
/// handed, arguments untouched (its own --help included), to the site server's executable.
@main
enum Main {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == VerifierForwardCommand.configuration.commandName {
            VerifierExecutable.exec(arguments: Array(arguments.dropFirst()))
        }
        CommandMain.run(KioskPadCommand.self)
    }
}
