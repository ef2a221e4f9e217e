import Foundation
import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes log lines to stderr. Under systemd, when stderr is the journal's stream
/// (`$JOURNAL_STREAM` names stderr's device and inode), each line starts with its syslog
/// priority (`<4>` for a warning, `<3>` for an error; sd-daemon(3)), so
/// `journalctl -p warning` finds warnings and errors; journald adds the time. Anywhere else
/// (a terminal, a pipe, a file) lines are plain text with a timestamp.
public struct JournalLogHandler: LogHandler {
    public var logLevel: Logger.Level = .notice
    public var metadata: Logger.Metadata = [:]
    private let label: String
    private let journal: Bool
    private let emit: @Sendable (String) -> Void

    /// `journal` true: priority prefixes, no timestamp. `emit` gets whole lines, newline included.
    public init(label: String, journal: Bool, emit: @escaping @Sendable (String) -> Void = JournalLogHandler.standardError) {
        self.label = label
        self.journal = journal
        self.emit = emit
    }

    /// A handler for stderr that detects the journal from the environment.
    public static func standardError(label: String) -> JournalLogHandler {
        JournalLogHandler(label: label, journal: stderrIsJournal())
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        let fields = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        // One record per line: a line break inside a message must not start a record without
        // its priority and label.
        var lines = "\(event.message)".split(separator: "\n", omittingEmptySubsequences: false).map { "\(label): \($0)" }
        if !fields.isEmpty { lines[lines.count - 1] += " " + fields }
        let level = event.level
        if journal {
            let prefix = "<\(Self.priority(level))>"
            emit(lines.map { prefix + $0 + "\n" }.joined())
        } else {
            let head = "\(Self.timestamp()) \(level) "
            emit(lines.map { head + $0 + "\n" }.joined())
        }
    }

    /// The syslog priority of a level: critical 2, error 3, warning 4, notice 5, info 6, debug and trace 7.
    public static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .critical: return 2
        case .error: return 3
        case .warning: return 4
        case .notice: return 5
        case .info: return 6
        case .debug, .trace: return 7
        }
    }

    /// True when `$JOURNAL_STREAM` ("DEVICE:INODE") is the file stderr is open on.
    public static func stderrIsJournal(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard let stream = environment["JOURNAL_STREAM"] else { return false }
        var info = stat()
        guard fstat(STDERR_FILENO, &info) == 0 else { return false }
        return stream == "\(info.st_dev):\(info.st_ino)"
    }

    /// One unbuffered write(2) per call, so lines from several threads never interleave.
    public static let standardError: @Sendable (String) -> Void = { text in
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeMutableBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return }
            offset += written
        }
        bytes.removeAll()
    }

    private static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
