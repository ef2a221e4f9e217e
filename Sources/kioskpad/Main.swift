import ArgumentParser
import Foundation
import KioskPadConfig
import TerminalIO

/// Entry point: runs a subcommand and maps failures to CONTRACTS exit codes
/// (0 normal, 2 bad usage or config, 1 runtime failure), restoring the terminal on the way out.
@main
enum Main {
    static func main() async {
        let code: Int32
        do {
            var command = try KioskPadCommand.parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            code = 0
        } catch let error as ConfigError {
            TerminalRestorer.shared.restore()
            FileHandle.standardError.write(Data((error.description + "\n").utf8))
            code = 2
        } catch let error as UsageError {
            TerminalRestorer.shared.restore()
            FileHandle.standardError.write(Data(("kioskpad: " + error.description + "\n").utf8))
            code = 2
        } catch let error as RuntimeFailure {
            TerminalRestorer.shared.restore()
            FileHandle.standardError.write(Data(("kioskpad: " + error.description + "\n").utf8))
            code = 1
        } catch {
            TerminalRestorer.shared.restore()
            let parserCode = KioskPadCommand.exitCode(for: error)
            if parserCode == .success {
                print(KioskPadCommand.fullMessage(for: error))
                code = 0
            } else if parserCode == .validationFailure {
                FileHandle.standardError.write(Data((KioskPadCommand.fullMessage(for: error) + "\n").utf8))
                code = 2
            } else {
                FileHandle.standardError.write(Data(("kioskpad: \(error)\n").utf8))
                code = 1
            }
        }
        TerminalRestorer.shared.restore()
        exit(code)
    }
}

/// Bad input from the user (exit 2): names the option or key and what would be valid.
struct UsageError: Error, CustomStringConvertible {
    let description: String
}

/// Something failed while running (exit 1).
struct RuntimeFailure: Error, CustomStringConvertible {
    let description: String
}
