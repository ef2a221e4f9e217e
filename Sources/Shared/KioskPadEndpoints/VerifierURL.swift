import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The rule for verifier URLs: http or https only, and plain `http://` only to a loopback
/// host unless explicitly allowed (PINs must not cross a network unencrypted by accident).
public enum VerifierURL {
    /// `url`'s scheme, host and port with `path`, no query or fragment (a site's other
    /// endpoints beside `/verify`); `url` itself when it cannot be read.
    public static func replacingPath(_ url: String, with path: String) -> String {
        guard var parts = URLComponents(string: url) else { return url }
        parts.path = path
        parts.query = nil
        parts.fragment = nil
        return parts.string ?? url
    }

    /// Why a URL is refused, or nil when it is fine.
    public static func problem(_ text: String, allowInsecureHTTP: Bool) -> String? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            return "'\(text)' is not an absolute http(s) URL"
        }
        guard scheme == "https" || scheme == "http" else {
            return "scheme \(scheme) is not supported; use https:// (or http:// on loopback)"
        }
        if scheme == "http" && !allowInsecureHTTP && !isLoopback(host) {
            return "plain http:// to \(host) would send PINs unencrypted; use https:// or set verifier.allow_insecure_http: true"
        }
        return nil
    }

    /// Loopback means an IP literal in 127.0.0.0/8, the IPv6 literal ::1, or exactly
    /// `localhost` when every address it resolves to is one of those. Any other name is
    /// remote, whatever it looks like (`127.evil.example` is a DNS name).
    public static func isLoopback(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if let address = IPAddress(literal: bare) { return address.isLoopback }
        guard bare.lowercased() == "localhost" else { return false }
        let resolved = IPAddress.resolve(bare)
        return !resolved.isEmpty && resolved.allSatisfy(\.isLoopback)
    }
}

/// An IPv4 or IPv6 address, from a literal or a name lookup.
enum IPAddress: Equatable {
    case v4([UInt8])
    case v6([UInt8])

    /// Parses a strict literal (`inet_pton`: dotted quad or IPv6 text; no `127.1` shorthand).
    init?(literal text: String) {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self = .v4(withUnsafeBytes(of: &v4) { Array($0) })
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            self = .v6(withUnsafeBytes(of: &v6) { Array($0) })
        } else {
            return nil
        }
    }

    var isLoopback: Bool {
        switch self {
        case .v4(let bytes): return bytes.first == 127
        case .v6(let bytes): return bytes == [UInt8](repeating: 0, count: 15) + [1]
        }
    }

    /// Every address `name` resolves to (empty when it does not resolve).
    static func resolve(_ name: String) -> [IPAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &list) == 0 else { return [] }
        defer { freeaddrinfo(list) }
        var addresses: [IPAddress] = []
        var entry = list
        while let info = entry?.pointee {
            if info.ai_family == AF_INET, let raw = info.ai_addr {
                raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    var ip = address.pointee.sin_addr
                    addresses.append(.v4(withUnsafeBytes(of: &ip) { Array($0) }))
                }
            } else if info.ai_family == AF_INET6, let raw = info.ai_addr {
                raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    var ip = address.pointee.sin6_addr
                    addresses.append(.v6(withUnsafeBytes(of: &ip) { Array($0) }))
                }
            }
            entry = info.ai_next
        }
        return addresses
    }
}
