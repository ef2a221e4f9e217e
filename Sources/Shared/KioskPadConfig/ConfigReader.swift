import Yams

/// Collects problems while a config is read, and holds the environment overrides.
public final class ProblemLog {
    public let source: String
    public let overrides: EnvironmentOverrides
    public private(set) var problems: [ConfigProblem] = []

    public init(source: String, overrides: EnvironmentOverrides = EnvironmentOverrides()) {
        self.source = source
        self.overrides = overrides
    }

    /// Records a problem; text from the file is shown escaped (``ConfigText``), one line each.
    public func report(_ path: String, _ message: String, at node: Node?) {
        problems.append(
            ConfigProblem(
                path: ConfigText.escaped(path), message: ConfigText.escaped(message), location: location(of: node, path: path)))
    }

    public func location(of node: Node?, path: String) -> String {
        if let mark = node?.mark { return "\(source):\(mark.line)" }
        if let variable = overrides.variable(for: path) { return "environment \(variable)" }
        return source
    }
}

/// Reads one YAML mapping strictly: each key may be read once with a type and a range,
/// and ``finish()`` reports every key nobody read as unknown, suggesting the closest
/// known key.
public final class MappingReader {
    public let path: String
    public let node: Node?
    public let log: ProblemLog
    private var pairs: [(key: String, keyNode: Node, value: Node)] = []
    /// The last pair of each key (YAML lets a key repeat; the last one counts).
    private var lastPair: [String: Int] = [:]
    private var known: [String] = []

    /// Reads `node` as a mapping at `path`; a non-mapping is reported and read as empty.
    public init(_ node: Node?, path: String, log: ProblemLog) {
        self.path = path
        self.node = node
        self.log = log
        switch node {
        case .mapping(let mapping):
            for (key, value) in mapping {
                guard let name = key.string else {
                    log.report(path, "keys must be plain words", at: key)
                    continue
                }
                lastPair[name] = pairs.count
                pairs.append((name, key, value))
            }
        case nil:
            break
        case .scalar where node?.null != nil:
            break
        default:
            log.report(path, "must be a mapping of keys to values", at: node)
        }
    }

    /// The keys present in the mapping.
    public var keys: [String] { Array(lastPair.keys) }

    public func keyPath(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// The value node for `key` (an environment override wins), marking it known.
    public func value(_ key: String) -> Node? {
        known.append(key)
        if let override = log.overrides.take(keyPath(key)) { return override }
        return lastPair[key].map { pairs[$0].value }
    }

    /// Marks keys as known without reading them (optional keys read only when present), so
    /// the list of valid keys in an unknown-key error names them.
    public func declare(_ keys: String...) {
        known += keys
    }

    public func has(_ key: String) -> Bool {
        lastPair[key] != nil || log.overrides.has(keyPath(key))
    }

    public func child(_ key: String) -> MappingReader {
        MappingReader(value(key), path: keyPath(key), log: log)
    }

    public func int(_ key: String, default fallback: Int, range: ClosedRange<Int>) -> Int {
        guard let node = value(key) else { return fallback }
        guard case .scalar = node, let number = node.int else {
            log.report(keyPath(key), "\(ConfigText.quoted(node.string ?? "?")) is not a whole number; valid: \(range)", at: node)
            return fallback
        }
        guard range.contains(number) else {
            log.report(keyPath(key), "\(number) is out of range \(range)", at: node)
            return fallback
        }
        return number
    }

    public func seconds(_ key: String, default fallback: Double, range: ClosedRange<Double>) -> Duration {
        guard let node = value(key) else { return .milliseconds(Int(fallback * 1000)) }
        guard case .scalar = node, let number = node.float ?? node.int.map(Double.init) else {
            log.report(keyPath(key), "\(ConfigText.quoted(node.string ?? "?")) is not a number of seconds; valid: \(format(range))", at: node)
            return .milliseconds(Int(fallback * 1000))
        }
        guard range.contains(number) else {
            log.report(keyPath(key), "\(number) is out of range \(format(range)) seconds", at: node)
            return .milliseconds(Int(fallback * 1000))
        }
        return .milliseconds(Int((number * 1000).rounded()))
    }

    public func bool(_ key: String, default fallback: Bool) -> Bool {
        guard let node = value(key) else { return fallback }
        guard case .scalar(let scalar) = node, scalar.style == .plain, let flag = node.bool else {
            log.report(keyPath(key), "\(ConfigText.quoted(node.string ?? "?")) is not true or false", at: node)
            return fallback
        }
        return flag
    }

    public func string(_ key: String, default fallback: String) -> String {
        guard let node = value(key) else { return fallback }
        guard case .scalar = node, let text = node.string else {
            log.report(keyPath(key), "must be text", at: node)
            return fallback
        }
        return text
    }

    public func choice<Choice: RawRepresentable & CaseIterable>(_ key: String, default fallback: Choice) -> Choice
    where Choice.RawValue == String {
        guard let node = value(key) else { return fallback }
        let valid = Choice.allCases.map(\.rawValue).joined(separator: ", ")
        guard case .scalar = node, let text = node.string, let choice = Choice(rawValue: text) else {
            log.report(keyPath(key), "\(ConfigText.quoted(node.string ?? "?")) is not one of: \(valid)", at: node)
            return fallback
        }
        return choice
    }

    /// A set of keypad labels written as one string, e.g. `"*"` or `"0123456789"`.
    public func labels(_ key: String, default fallback: String) -> [Character] {
        let text = string(key, default: fallback)
        if let bad = text.first(where: { !$0.isASCII || $0.isWhitespace || $0.isNewline }) {
            log.report(keyPath(key), "\(ConfigText.quoted(String(bad))) is not a key label; use printable ASCII characters", at: value(key))
            return Array(fallback)
        }
        return Array(text)
    }

    /// Reports keys that were never read: the first ``maxListed`` one line each, with the
    /// closest known key as a suggestion (within an edit distance of 3), then one line for
    /// the rest, so a file of half a million stray keys is still reported in moments.
    public func finish() {
        let knownSet = Set(known)
        let valid = knownSet.sorted().joined(separator: ", ")
        let unknown = pairs.filter { !knownSet.contains($0.key) }
        for pair in unknown.prefix(MappingReader.maxListed) {
            var message = "unknown key"
            if let suggestion = closest(to: pair.key, among: knownSet) {
                message += "; did you mean '\(suggestion)'?"
            }
            if !knownSet.isEmpty { message += " Valid keys here: \(valid)" }
            let shownKey = ConfigText.key(pair.key)
            log.report(path.isEmpty ? shownKey : "\(path).\(shownKey)", message, at: pair.keyNode)
        }
        if unknown.count > MappingReader.maxListed {
            let rest = unknown.dropFirst(MappingReader.maxListed)
            log.report(
                path,
                "\(rest.count) more unknown keys, from \(ConfigText.quoted(rest.first!.key)) to \(ConfigText.quoted(rest.last!.key)), not listed one by one",
                at: rest.first!.keyNode)
        }
    }

    public static let maxListed = 100

    private func closest(to key: String, among known: Set<String>) -> String? {
        guard key.count <= 64 else { return nil }
        var best: (name: String, distance: Int)?
        for name in known.sorted() where abs(name.count - key.count) <= 3 {
            let distance = editDistance(name, key)
            if distance <= 3, distance < (best?.distance ?? Int.max) { best = (name, distance) }
        }
        return best?.name
    }

    private func format(_ range: ClosedRange<Double>) -> String {
        "\(trim(range.lowerBound))...\(trim(range.upperBound))"
    }

    private func trim(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

/// Levenshtein distance, for "did you mean" suggestions.
public func editDistance(_ lhs: String, _ rhs: String) -> Int {
    let a = Array(lhs)
    let b = Array(rhs)
    var previous = Array(0...b.count)
    for (i, x) in a.enumerated() {
        var current = [i + 1]
        for (j, y) in b.enumerated() {
            current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
        }
        previous = current
    }
    return previous[b.count]
}
