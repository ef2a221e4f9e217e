import ArgumentParser
import Foundation
import KioskPadConfig
import KioskPadCore
import KioskPadExecutors
import TerminalIO

/// The entry point of both executables (`kioskpad`, `kioskpad-verifier`): runs the command
/// line's subcommand and maps failures to the documented exit codes (0 normal, 2 bad usage or
/// config, 1 runtime failure), restoring the terminal on the way out. The door's tasks run
/// on ``QuietExecutors`` (installed before the first task exists, with the QuietExecutors
/// trait on Swift 6.3 or newer); the site server's on Swift's standard executors.
public enum CommandMain {
    /// Which executors a program's tasks run on.
    public enum Executors: Sendable {
        /// The door's: a fixed pool that sleeps while idle (docs/architecture.md, "Threads and executors").
        case quiet
        /// Swift's standard executors: the site server's, whose work is requests, not idling.
        case standard
    }

    public static func run<Root: ParsableCommand>(_ root: Root.Type, arguments: [String]? = nil, executors: Executors = .quiet) -> Never {
        #if QuietExecutors && compiler(>=6.3)
            if executors == .quiet {
                QuietExecutors.install()
                QuietExecutors.runMain { await runCommand(root, arguments: arguments) }
            }
        #endif
        // The standard executors: libdispatch's pool, whose idle threads wake about once a
        // second (docs/development.md gives both figures). `runCommand` ends the process.
        Task { await runCommand(root, arguments: arguments) }
        dispatchMain()
    }

    static func runCommand<Root: ParsableCommand>(_ root: Root.Type, arguments: [String]?) async -> Never {
        let code: Int32
        do {
            var command = try Root.parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            code = 0
        } catch let error as any ExitCodeProviding {
            TerminalRestorer.shared.restore()
            // A config error's lines already name the file and key; the others get the prefix.
            let text = error is ConfigError ? error.description : "kioskpad: " + error.description
            FileHandle.standardError.write(Data((text + "\n").utf8))
            code = error.exitCode
        } catch {
            TerminalRestorer.shared.restore()
            let parserCode = Root.exitCode(for: error)
            if parserCode == .success {
                print(Root.fullMessage(for: error))
                code = 0
            } else if parserCode == .validationFailure {
                FileHandle.standardError.write(Data((Root.fullMessage(for: error) + "\n").utf8))
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

/// Bad input on the command line or stdin (exit 2): names the option and what would be
/// valid. Problems with a config setting are ``KeyedError``s.
public struct UsageError: ExitCodeProviding {
    public let description: String
    public var exitCode: Int32 { 2 }

    public init(description: String) { self.description = description }
}

/// Something failed while running that no single setting names (exit 1).
public struct RuntimeFailure: ExitCodeProviding {
    public let description: String
    public var exitCode: Int32 { 1 }

    public init(description: String) { self.description = description }
}
