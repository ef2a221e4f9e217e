import ArgumentParser
import Logging
import Synchronization

/// Logs go to stderr, so stdout stays the display in plain mode; under systemd each line
/// carries its syslog priority (``JournalLogHandler``).
public enum LoggingSetup {
    private static let done = Atomic<Bool>(false)

    /// Sets the process's log handler the first time it is called; later calls (a command that
    /// opens its database more than once, such as `verifier user learn-card` waiting for the
    /// card) keep the first level. swift-log allows one bootstrap per process and traps on a
    /// second.
    public static func bootstrap(level: Logger.Level) {
        guard done.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
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
