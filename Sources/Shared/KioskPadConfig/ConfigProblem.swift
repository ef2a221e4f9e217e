import KioskPadCore

/// One thing wrong with a config file: the key path, what is wrong and what would be
/// valid, and where it came from (file and line, or the environment variable).
public struct ConfigProblem: Equatable, Sendable, CustomStringConvertible {
    public let path: String
    public let message: String
    public let location: String?

    public init(path: String, message: String, location: String?) {
        self.path = path
        self.message = message
        self.location = location
    }

    /// For example `entry.max_length: 13 is out of range 4...12 (config/door.yaml:7)`.
    public var description: String {
        let head = path.isEmpty ? message : "\(path): \(message)"
        return location.map { "\(head) (\($0))" } ?? head
    }
}

/// A config that could not be used; lists every problem found, not just the first.
public struct ConfigError: Error, Equatable, Sendable, CustomStringConvertible, ExitCodeProviding {
    public let problems: [ConfigProblem]

    public init(problems: [ConfigProblem]) {
        self.problems = problems
    }

    public var description: String {
        problems.map(\.description).joined(separator: "\n")
    }

    /// Bad config: exit 2.
    public var exitCode: Int32 { 2 }
}
