/// Where an address lies: the public internet, or one of the special-purpose ranges that stay
/// inside a host or a site's network (IANA's special-purpose registries, RFC 6890). The site
/// sends webhooks only to public addresses unless its config file lists a target.
public enum IPAddressScope: String, Sendable, CaseIterable {
    case `public`
    /// 127.0.0.0/8, ::1.
    case loopback
    /// 169.254.0.0/16 (where cloud metadata services answer), fe80::/10.
    case linkLocal = "link-local"
    /// 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16 (RFC 1918), fc00::/7 (unique local), fec0::/10.
    case `private`
    /// 100.64.0.0/10, carrier-grade NAT (RFC 6598).
    case sharedAddressSpace = "shared (CGNAT)"
    /// 224.0.0.0/4, ff00::/8.
    case multicast
    /// 0.0.0.0/8, ::.
    case unspecified
    /// Documentation, benchmarking, protocol assignments, 240.0.0.0/4, broadcast, and IPv6
    /// transition ranges whose embedded IPv4 address is not public.
    case reserved
}

extension IPAddress {
    /// The range this address lies in. An IPv6 address that carries an IPv4 one (mapped
    /// `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`, compatible `::a.b.c.d`) has
    /// that address's scope; Teredo (`2001::/32`) is reserved.
    public var scope: IPAddressScope {
        switch self {
        case .v4(let bytes): return Self.scope(v4: bytes)
        case .v6(let bytes): return Self.scope(v6: bytes)
        }
    }

    private static func scope(v4 b: [UInt8]) -> IPAddressScope {
        guard b.count == 4 else { return .reserved }
        switch (b[0], b[1], b[2]) {
        case (0, _, _): return .unspecified
        case (127, _, _): return .loopback
        case (10, _, _): return .private
        case (172, 16...31, _), (192, 168, _): return .private
        case (169, 254, _): return .linkLocal
        case (100, 64...127, _): return .sharedAddressSpace
        case (224...239, _, _): return .multicast
        case (240...255, _, _): return .reserved
        // Protocol assignments, the three documentation networks, benchmarking, 6to4 relays.
        case (192, 0, 0), (192, 0, 2), (198, 51, 100), (203, 0, 113), (198, 18...19, _), (192, 88, 99): return .reserved
        default: return .public
        }
    }

    private static func scope(v6 b: [UInt8]) -> IPAddressScope {
        guard b.count == 16 else { return .reserved }
        let head = b[0..<10].allSatisfy { $0 == 0 }
        if head && b[10] == 0 && b[11] == 0 {
            if b[12..<16].allSatisfy({ $0 == 0 }) { return .unspecified }
            if b[12..<15].allSatisfy({ $0 == 0 }) && b[15] == 1 { return .loopback }
            return scope(v4: Array(b[12..<16]))  // IPv4-compatible (deprecated)
        }
        if head && b[10] == 0xff && b[11] == 0xff { return scope(v4: Array(b[12..<16])) }  // IPv4-mapped
        if b[0..<4] == [0x00, 0x64, 0xff, 0x9b] { return scope(v4: Array(b[12..<16])) }  // NAT64
        if b[0] == 0x20 && b[1] == 0x02 { return scope(v4: Array(b[2..<6])) }  // 6to4
        if b[0] == 0xff { return .multicast }
        if b[0] == 0xfe && b[1] & 0xc0 == 0x80 { return .linkLocal }
        if b[0] == 0xfe && b[1] & 0xc0 == 0xc0 { return .private }  // site-local (deprecated)
        if b[0] & 0xfe == 0xfc { return .private }  // unique local
        if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8 { return .reserved }  // documentation
        if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && b[3] == 0 { return .reserved }  // Teredo
        if b[0] == 0x01 && b[1..<8].allSatisfy({ $0 == 0 }) { return .reserved }  // discard-only
        // Global unicast is 2000::/3; the rest is unassigned.
        return b[0] & 0xe0 == 0x20 ? .public : .reserved
    }
}

/// An address range written as CIDR (`10.20.0.0/16`, `fd00::/8`) or one address.
public struct IPAddressRange: Hashable, Sendable, CustomStringConvertible {
    public let network: IPAddress
    public let prefix: Int

    /// `text` as CIDR or a single address; nil when it is neither, or its prefix is out of
    /// range (0-32 for IPv4, 0-128 for IPv6).
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let address = IPAddress(literal: String(parts[0])) else { return nil }
        let width = address.bytes.count * 8
        if parts.count == 2 {
            guard let prefix = Int(parts[1]), (0...width).contains(prefix), parts[1].allSatisfy(\.isASCII) else { return nil }
            self.prefix = prefix
        } else {
            prefix = width
        }
        network = address
    }

    public func contains(_ address: IPAddress) -> Bool {
        let mine = network.bytes
        let theirs = address.bytes
        guard mine.count == theirs.count else { return false }
        var left = prefix
        for index in mine.indices where left > 0 {
            let bits = min(8, left)
            let mask = UInt8(truncatingIfNeeded: 0xff << (8 - bits))
            if mine[index] & mask != theirs[index] & mask { return false }
            left -= bits
        }
        return true
    }

    public var description: String { "\(network)/\(prefix)" }
}
