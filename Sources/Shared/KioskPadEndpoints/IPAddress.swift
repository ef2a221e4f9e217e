import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An IPv4 or IPv6 address, from a literal or a name lookup.
public enum IPAddress: Hashable, Sendable, CustomStringConvertible {
    case v4([UInt8])
    case v6([UInt8])

    /// Parses a strict literal (`inet_pton`: dotted quad or IPv6 text; no `127.1` shorthand).
    /// An IPv6 literal may come in brackets, as a URL writes it.
    public init?(literal text: String) {
        let bare = text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, bare, &v4) == 1 {
            self = .v4(withUnsafeBytes(of: &v4) { Array($0) })
        } else if inet_pton(AF_INET6, bare, &v6) == 1 {
            self = .v6(withUnsafeBytes(of: &v6) { Array($0) })
        } else {
            return nil
        }
    }

    /// The address's bytes in network order (4 or 16).
    public var bytes: [UInt8] {
        switch self {
        case .v4(let bytes), .v6(let bytes): return bytes
        }
    }

    /// The text form (`inet_ntop`), without brackets.
    public var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        var raw = bytes
        let family = raw.count == 4 ? AF_INET : AF_INET6
        guard inet_ntop(family, &raw, &buffer, socklen_t(buffer.count)) != nil else { return "?" }
        let text = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: text, as: UTF8.self)
    }

    public var isLoopback: Bool { scope == .loopback }

    /// Every address `name` resolves to (empty when it does not resolve). Blocks on
    /// `getaddrinfo`: call it from a thread of its own, never a cooperative one.
    public static func resolve(_ name: String) -> [IPAddress] {
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
        var seen = Set<IPAddress>()
        return addresses.filter { seen.insert($0).inserted }
    }
}
