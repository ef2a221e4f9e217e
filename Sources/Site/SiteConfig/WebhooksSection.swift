import KioskPadConfig
import KioskPadEndpoints
import Yams

/// `server.webhooks:` where the site may send webhooks beyond public addresses (only this file
/// widens it; no API call or console form can), and how much may wait per subscription.
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
    /// `max_pending`: messages that may wait per subscription (default 10,000).
    public var maxPending = 10_000
    /// `max_pending_bytes`: bytes of message bodies that may wait per subscription (default 10,000,000).
    public var maxPendingBytes = 10_000_000
    /// `disable_after_hours`: a subscription whose receiver failed every try this long is disabled (default 48).
    public var disableAfterHours = 48

    public init() {}
}

enum WebhooksSection {
    static func read(_ server: MappingReader) -> WebhookTargetSettings {
        var settings = WebhookTargetSettings()
        guard server.has("webhooks") else { return settings }
        let reader = server.child("webhooks")
        settings.allowTargets = list(reader, "allow_targets")
        settings.allowHTTP = list(reader, "allow_http")
        settings.maxPending = reader.int("max_pending", default: 10_000, range: 100...10_000_000)
        settings.maxPendingBytes = reader.int("max_pending_bytes", default: 10_000_000, range: 100_000...100_000_000_000)
        settings.disableAfterHours = reader.int("disable_after_hours", default: 48, range: 1...8_760)
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
