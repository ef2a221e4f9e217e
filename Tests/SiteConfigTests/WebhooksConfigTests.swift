import KioskPadConfig
import KioskPadEndpoints
import SiteConfig
import Testing

/// `server.webhooks`: what the operator lets webhooks reach inside the site's network, read
/// entry by entry, each bad one named.
@Suite("Verifier config: webhook targets")
struct WebhooksConfigTests {
    let base = "server:\n  allow_unsigned: true\n"

    @Test func nothingInsideTheNetworkIsAllowedByDefault() throws {
        let settings = try ConfigLoader.parseServer(yaml: base, source: "v.yaml").webhooks
        #expect(settings.allowTargets.isEmpty && settings.allowHTTP.isEmpty)
    }

    @Test func addressesRangesAndNamesAreRead() throws {
        let yaml = base + "  webhooks:\n    allow_targets: [10.20.0.15, 10.30.0.0/16, \"fd00::/8\", Hooks.Corp.Example]\n    allow_http: [hooks.corp.example]\n"
        let settings = try ConfigLoader.parseServer(yaml: yaml, source: "v.yaml").webhooks
        #expect(settings.allowTargets.map(\.description) == ["10.20.0.15", "10.30.0.0/16", "fd00::/8", "hooks.corp.example"])
        #expect(settings.allowHTTP == [AllowedTarget("hooks.corp.example")!])
    }

    @Test func aBadEntryOrKeyIsNamed() {
        let error = #expect(throws: ConfigError.self) {
            try ConfigLoader.parseServer(yaml: base + "  webhooks:\n    allow_targets: [10.0.0.0/40, \"http://x\"]\n    allow_https: []\n", source: "v.yaml")
        }
        let text = error?.description ?? ""
        #expect(text.contains("server.webhooks.allow_targets") && text.contains("10.0.0.0/40") && text.contains("http://x"), "\(text)")
        #expect(text.contains("allow_https"), "\(text)")
        let notList = #expect(throws: ConfigError.self) {
            try ConfigLoader.parseServer(yaml: base + "  webhooks:\n    allow_targets: 10.0.0.1\n", source: "v.yaml")
        }
        #expect(notList?.description.contains("must be a list") == true)
    }
}
