/// A target an operator allowed in a config file: an address, a CIDR range, or a host name
/// (then whatever it resolves to). The site's `server.webhooks.allow_targets` and `allow_http`
/// are lists of them.
public enum AllowedTarget: Sendable, Hashable, CustomStringConvertible {
    case range(IPAddressRange)
    case host(String)

    /// `text` as an address, a CIDR range or a host name (letters, digits, '-' and '.'),
    /// or nil.
    public init?(_ text: String) {
        if let range = IPAddressRange(text) {
            self = .range(range)
            return
        }
        let name = text.lowercased()
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789-.")
        guard !name.isEmpty, name.count <= 253, name.allSatisfy(allowed.contains), !name.hasPrefix("."), !name.hasPrefix("-"),
            name.contains(where: \.isLetter)
        else { return nil }
        self = .host(name)
    }

    public func matches(host: String, address: IPAddress) -> Bool {
        switch self {
        case .range(let range): return range.contains(address)
        case .host(let name): return name == host.lowercased()
        }
    }

    public var description: String {
        switch self {
        case .range(let range): return range.prefix == range.network.bytes.count * 8 ? "\(range.network)" : "\(range)"
        case .host(let name): return name
        }
    }
}
