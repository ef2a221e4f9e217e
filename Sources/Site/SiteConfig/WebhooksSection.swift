import KioskPadConfig
import KioskPadEndpoints
import Yams

/// `server.webhooks:` where the site may send webhooks beyond public addresses. Only this file
/// widens it; no API call or console form can.
///
/// ```yaml
/// webhooks:
///   allow_targets: [10.20.0.15, 10.30.0.0/16, hooks.corp.example]
///   allow_http: [hooks.corp.example]
/// ```
public struct WebhookTargetSettings: Sendable, Equatable {
    /// Receivers inside the site's network (loopback, private, link-local ...) that may be sent to.
    public var allowTargets: [AllowedTarget] = []
    /// Hosts plain `http://` may go to besides loopback.
    public var allowHTTP: [AllowedTarget] = []

    public init() {}
}

enum WebhooksSection {
    static func read(_ server: MappingReader) -> WebhookTargetSettings {
        var settings = WebhookTargetSettings()
        guard server.has("webhooks") else { return settings }
        let reader = server.child("webhooks")
        settings.allowTargets = list(reader, "allow_targets")
        settings.allowHTTP = list(reader, "allow_http")
        reader.finish()
        return settings
    }

    /// A list of addresses, CIDR ranges or host names, each checked; at most 256.
    static func list(_ reader: MappingReader, _ key: String) -> [AllowedTarget] {
        guard let node = reader.value(key) else { return [] }
        guard case .sequence(let sequence) = node, sequence.count <= 256 else {
            reader.log.report(
                reader.keyPath(key), "must be a list of at most 256 addresses, CIDR ranges or host names, e.g. [10.20.0.15, 10.30.0.0/16, hooks.corp.example]",
                at: node)
            return []
        }
        var targets: [AllowedTarget] = []
        for item in sequence {
            guard case .scalar = item, let text = item.string, let target = AllowedTarget(text) else {
                reader.log.report(
                    reader.keyPath(key), "\(ConfigText.quoted(item.string ?? "?")) is not an address, a CIDR range (10.30.0.0/16, fd00::/8) or a host name",
                    at: item)
                continue
            }
            targets.append(target)
        }
        return targets
    }
}
