import KioskPadConfig
import KioskPadEndpoints
import SiteConfig
import Testing

@Suite("Verifier server config: lookup key")
struct ServerLookupKeyConfigTests {
    let base = "server:\n  allow_unsigned: true\n"

    @Test func theKeyFileIsResolvedBesideTheConfig() throws {
        let settings = try ConfigLoader.parseServer(yaml: base + "  lookup_key_file: lookup.key\n", source: "v.yaml", baseDirectory: "/etc/kioskpad")
        #expect(settings.lookupKey == .file("/etc/kioskpad/lookup.key"))
        #expect(try ConfigLoader.parseServer(yaml: base, source: "v.yaml").lookupKey == nil)
        #expect(try ConfigLoader.parseServer(yaml: base + "  lookup_key_credential: lookup\n", source: "v.yaml").lookupKey == .credential("lookup"))
    }

    @Test func aKeyInTheConfigOrTwoSourcesAreRefusedNamingTheKey() {
        let inline = #expect(throws: ConfigError.self) { try ConfigLoader.parseServer(yaml: base + "  lookup_key: abcdefgh\n", source: "v.yaml") }
        #expect(inline?.description.contains("server.lookup_key: secrets are never read from the config file") == true)
        let two = #expect(throws: ConfigError.self) {
            try ConfigLoader.parseServer(yaml: base + "  lookup_key_file: k\n  lookup_key_env: K\n", source: "v.yaml")
        }
        #expect(two?.description.contains("give only one of lookup_key_file, lookup_key_env and lookup_key_credential") == true)
    }
}
