import Yams

/// Config keys set from the environment: `KIOSKPAD__ENTRY__MAX_LENGTH=6` sets
/// `entry.max_length`. The value is read as a YAML scalar, so it is checked like the file.
/// A variable that names no key is reported as unknown, like a typo in the file.
public final class EnvironmentOverrides {
    public static let prefix = "KIOSKPAD__"
    private var values: [String: (variable: String, node: Node)] = [:]
    private var used: Set<String> = []

    public init(environment: [String: String] = [:]) {
        for (name, value) in environment where name.hasPrefix(EnvironmentOverrides.prefix) {
            let path = name.dropFirst(EnvironmentOverrides.prefix.count)
                .split(separator: "__", omittingEmptySubsequences: false)
                .map { $0.lowercased() }
                .joined(separator: ".")
            values[path] = (name, Node.scalar(Node.Scalar(value)))
        }
    }

    public func take(_ path: String) -> Node? {
        guard let entry = values[path] else { return nil }
        used.insert(path)
        return entry.node
    }

    public func has(_ path: String) -> Bool { values[path] != nil }

    public func variable(for path: String) -> String? { values[path]?.variable }

    /// Overrides that matched no key read from the config.
    public var unused: [(path: String, variable: String)] {
        values.filter { !used.contains($0.key) }
            .map { (path: $0.key, variable: $0.value.variable) }
            .sorted { $0.path < $1.path }
    }
}
