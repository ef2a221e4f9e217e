import Foundation
import KioskPadConfig
import Yams

/// The settings an adopted door's site gives it (`state_dir/site-settings.json`, as the site
/// signed them: `{"kind": "settings", "settings": {"entry.timeout_s": 15, ...}, "terminal_id",
/// "version"}`), laid under the door's own file before it is read: a key the file sets is
/// the file's; `door.*`, `display.*` and `mqtt.enabled` apply only where the file has a
/// `door:`, `display:` or `mqtt:` section (hardware stays local: a site's door times never
/// make a door of a kiosk); `verifier.offline.*` is read for the site's verifier.
public struct SiteSettings: Sendable, Equatable {
    /// The settings version the site gave.
    public let version: Int64
    /// The door they were given to.
    public let terminalID: String
    /// The settings, by dotted key, each as its JSON text's scalar.
    let values: [(key: String, value: String)]

    public static func == (lhs: SiteSettings, rhs: SiteSettings) -> Bool {
        lhs.version == rhs.version && lhs.terminalID == rhs.terminalID && lhs.values.map(\.key) == rhs.values.map(\.key)
            && lhs.values.map(\.value) == rhs.values.map(\.value)
    }

    /// Reads the payload's JSON (as the site signed it); nil when it is not settings.
    public init?(payload: String) {
        guard case .mapping(let top)? = try? Yams.compose(yaml: payload, .basic), top["kind"]?.string == "settings",
            let version = top["version"]?.int, version > 0, let terminalID = top["terminal_id"]?.string, case .mapping(let settings)? = top["settings"]
        else { return nil }
        self.terminalID = terminalID
        var values: [(key: String, value: String)] = []
        for (key, value) in settings {
            guard let name = key.string, let text = value.string else { return nil }
            values.append((name, text))
        }
        self.version = Int64(version)
        self.values = values.sorted { $0.key < $1.key }
    }

    /// The version a payload names, 0 when it names none (for a refusal of one that is not settings).
    public static func version(inPayload payload: String) -> Int64 {
        guard case .mapping(let top)? = try? Yams.compose(yaml: payload, .basic), let version = top["version"]?.int else { return 0 }
        return Int64(version)
    }

    /// The keys whose value differs from `previous` (every key when there is none).
    public func changedKeys(since previous: SiteSettings?) -> Set<String> {
        let now = Dictionary(values.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
        let before = Dictionary((previous?.values ?? []).map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
        return Set(now.keys).union(before.keys).filter { now[$0] != before[$0] }
    }

    /// `root` (the door's file) with these settings laid under it.
    func laid(under root: Node?) -> Node? {
        guard case .mapping(var top)? = root else { return root }
        for (key, value) in values {
            let parts = key.split(separator: ".").map(String.init)
            guard let first = parts.first, parts.count > 1 else { continue }
            // Hardware sections are the file's: only times and texts go into one it has, and
            // MQTT is turned on or off only where the file names its broker. The verifier is
            // the site's (``offline(site:replicaKeys:log:)``), never a section laid here.
            if Self.fileSections.contains(first) && Self.child(first, of: top) == nil { continue }
            if first == "verifier" { continue }
            top = Self.insert(parts[...], value: value, into: top)
        }
        return .mapping(top)
    }

    /// Sections a site's setting goes into only when the door's file has them.
    static let fileSections: Set<String> = ["door", "display", "mqtt"]

    /// The value given for `key`, as its JSON text's scalar; nil when not given.
    public func value(_ key: String) -> String? {
        values.first { $0.key == key }?.value
    }

    /// `verifier.offline` for an adopted door, from these settings (`verifier.offline.mode`,
    /// `sync_s`, `max_age_h`) and the replica keys its site gave it; read by the same checker
    /// as a file's `verifier.offline`, so a bad value is refused with its key. Nil unless the
    /// mode given is `fallback`.
    func offline(site: String, replicaKeys: (current: String, next: String?)?, log: ProblemLog) -> OfflineConfiguration? {
        let keys = ["mode", "sync_s", "max_age_h"]
        var pairs: [(Node, Node)] = keys.compactMap { name in value("verifier.offline." + name).map { (Node(name), Self.scalar($0)) } }
        guard !pairs.isEmpty else { return nil }
        if let replicaKeys { pairs.append((Node("public_key"), Node(replicaKeys.current))) }
        let verifier = Node.Mapping([(Node("offline"), .mapping(Node.Mapping(pairs)))])
        let reader = MappingReader(.mapping(verifier), path: "verifier", log: log)
        var offline = OfflineSection.read(reader, verifierURL: site + "/verify", allowInsecureHTTP: false)
        offline?.nextPublicKey = replicaKeys?.next
        return offline
    }

    /// A setting's value as a plain scalar, as a file's unquoted value is (a flag reads as one).
    static func scalar(_ text: String) -> Node {
        .scalar(Node.Scalar(text, .implicit, .plain))
    }

    static func child(_ name: String, of mapping: Node.Mapping) -> Node? {
        mapping.first { $0.key.string == name }?.value
    }

    /// `value` at `parts` in `mapping`, unless the mapping has it already (the file wins).
    static func insert(_ parts: ArraySlice<String>, value: String, into mapping: Node.Mapping) -> Node.Mapping {
        guard let name = parts.first else { return mapping }
        var pairs = mapping.map { ($0.key, $0.value) }
        let index = pairs.firstIndex { $0.0.string == name }
        if parts.count == 1 {
            guard index == nil else { return mapping }
            pairs.append((Node(name), Self.scalar(value)))
        } else if let index {
            guard case .mapping(let inner) = pairs[index].1 else { return mapping }
            pairs[index].1 = .mapping(insert(parts.dropFirst(), value: value, into: inner))
        } else {
            pairs.append((Node(name), .mapping(insert(parts.dropFirst(), value: value, into: Node.Mapping([])))))
        }
        return Node.Mapping(pairs, mapping.tag, mapping.style, mapping.mark)
    }
}
