import ArgumentParser
import DoorAssembly
import DoorConfig
import DoorTools
import KioskPadCommandLine
import KioskPadConfig

/// `kioskpad keytest`: a wiring check that prints every key event until Ctrl-C.
struct KeytestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keytest",
        abstract: "Wiring check: print every key press and release with row, column and label until Ctrl-C.",
        discussion:
            "Also prints hold events and warnings for ghosting (three keys forming a rectangle on a keypad without diodes) and stuck keys. On exit it prints scan statistics."
    )

    @Option(help: "Config file with a keypad section (driver: gpio, evdev or wiegand).")
    var config: String

    func run() async throws {
        let check = try KeypadWiringCheck(try ConfigLoader.load(path: config), print: { writeLine($0) })
        writeLine(check.banner)
        let failure = AsyncStream.makeStream(of: String.self)
        check.start(failed: { message in
            failure.continuation.yield(message)
            failure.continuation.finish()
        })
        let outcome = await KeytestCommand.untilSignalOrFailure(failure)
        if let stats = await check.stop() { writeLine(stats) }
        if let outcome { throw RuntimeFailure(description: outcome) }
    }

    /// Waits for Ctrl-C/SIGTERM (nil) or the first failure message on `failure`.
    static func untilSignalOrFailure(
        _ failure: (stream: AsyncStream<String>, continuation: AsyncStream<String>.Continuation)
    ) async -> String? {
        await withTaskGroup(of: String?.self) { group in
            group.addTask {
                _ = await SignalWaiter.wait()
                return nil
            }
            group.addTask {
                for await message in failure.stream { return message }
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            failure.continuation.finish()
            return first
        }
    }
}
