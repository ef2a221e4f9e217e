import ArgumentParser
import KioskPadConfig

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
        discussion: "Environment overrides (KIOSKPAD__SECTION__KEY=value) are applied and checked too. Files the config names (users_file) are read when the terminal starts, not here."
    )

    @Argument(help: "The YAML config file to check.")
    var file: String

    func run() async throws {
        _ = try ConfigLoader.load(path: file)
        print("ok")
    }
}
