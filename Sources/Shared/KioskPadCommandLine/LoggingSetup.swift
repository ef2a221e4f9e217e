import ArgumentParser
import Logging

/// Logs go to stderr, so stdout stays the display in plain mode; under systemd each line
/// carries its syslog priority (``JournalLogHandler``).
public enum LoggingSetup {
    public static func bootstrap(level: Logger.Level) {
        LoggingSystem.bootstrap { label in
            var handler = JournalLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}

// swift-format-ignore: AvoidRetroactiveConformances
// `--log-level` takes swift-log's levels by name; neither package will declare this.
extension Logger.Level: @retroactive ExpressibleByArgument {}
