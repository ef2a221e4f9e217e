import KioskPadConfig
import KioskPadEndpoints
import Yams

/// `server.trusted_proxies`: the reverse proxies in front of the doors' listener, as IP
/// literals. A request from one of them is counted for its `X-Forwarded-For` client (the
/// per-address limits of announcements and refusals), so doors behind one proxy do not share
/// one address's limits; a request from anyone else is counted for its peer, whatever it sends.
enum TrustedProxiesSection {
    static let maxProxies = 64

    static func read(_ reader: MappingReader) -> [IPAddress] {
        guard let node = reader.value("trusted_proxies") else { return [] }
        guard case .sequence(let sequence) = node, sequence.count <= maxProxies else {
            reader.log.report(
                reader.keyPath("trusted_proxies"), "must be a list of at most \(maxProxies) IP addresses, e.g. [127.0.0.1, 10.20.0.2]", at: node)
            return []
        }
        var proxies: [IPAddress] = []
        for item in sequence {
            guard case .scalar = item, let text = item.string, let address = IPAddress(literal: text) else {
                reader.log.report(
                    reader.keyPath("trusted_proxies"),
                    "\(ConfigText.quoted(item.string ?? "?")) is not an IP address: name each reverse proxy by its address (127.0.0.1, 10.20.0.2, ::1)",
                    at: item)
                continue
            }
            proxies.append(address)
        }
        return proxies
    }
}
