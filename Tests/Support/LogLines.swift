import Logging
import Synchronization

/// Log lines kept for assertions.
public final class LogLines: Sendable {
    public init() {}
    private let lines = Mutex<[String]>([])
    public var all: [String] { lines.withLock { $0 } }
    public func append(_ line: String) { lines.withLock { $0.append(line) } }

    public struct Handler: LogHandler {
        let lines: LogLines
        public var metadata: Logger.Metadata = [:]
        public var logLevel: Logger.Level = .debug
        public init(lines: LogLines) { self.lines = lines }
        public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        public func log(event: LogEvent) {
            let fields = (event.metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            lines.append("\(event.level) \(event.message) \(fields)")
        }
    }
}
