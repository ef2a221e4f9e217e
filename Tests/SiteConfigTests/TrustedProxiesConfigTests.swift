import KioskPadConfig
import KioskPadEndpoints
import SiteConfig
import Testing

/// `server.trusted_proxies`: the reverse proxies in front of the doors' listener, as IP
/// literals, each bad entry named.
@Suite("Verifier config: trusted proxies")
struct TrustedProxiesConfigTests {
    let base = "server:\n  allow_unsigned: true\n"

    @Test func noneByDefaultAndAddressesAreRead() throws {
        #expect(try ConfigLoader.parseServer(yaml: base, source: "v.yaml").trustedProxies.isEmpty)
        let proxies = try ConfigLoader.parseServer(yaml: base + "  trusted_proxies: [127.0.0.1, \"::1\", 10.20.0.2]\n", source: "v.yaml").trustedProxies
        #expect(proxies.map(\.description) == ["127.0.0.1", "::1", "10.20.0.2"])
    }

    @Test func aNameARangeOrAScalarIsRefusedByName() {
        let error = #expect(throws: ConfigError.self) {
            try ConfigLoader.parseServer(yaml: base + "  trusted_proxies: [proxy.example, 10.0.0.0/8]\n", source: "v.yaml")
        }
        let text = error?.description ?? ""
        #expect(text.contains("server.trusted_proxies") && text.contains("proxy.example") && text.contains("10.0.0.0/8"), "\(text)")
        #expect(text.contains("is not an IP address"), "\(text)")
        let scalar = #expect(throws: ConfigError.self) { try ConfigLoader.parseServer(yaml: base + "  trusted_proxies: 127.0.0.1\n", source: "v.yaml") }
        #expect(scalar?.description.contains("must be a list of at most 64 IP addresses") == true)
    }
}
