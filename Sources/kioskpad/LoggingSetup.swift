import ArgumentParser
import Logging

/// Logs go to stderr, so stdout stays the display in plain mode.
enum LoggingSetup {
    static func bootstrap(level: Logger.Level) {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
