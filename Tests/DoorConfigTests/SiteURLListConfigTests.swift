import DoorConfig
import KioskPadConfig
import Testing

/// `verifier.urls` and `events.urls`: the same site's addresses in order, each held to the
/// URL rule, named by its place in the list when wrong.
@Suite("Terminal config: several site addresses")
struct SiteURLListConfigTests {
    func parse(_ yaml: String) throws -> KioskPadConfiguration {
        try ConfigLoader.parse(yaml: "terminal_id: front-door\n" + yaml, source: "t.yaml")
    }

    func problem(_ yaml: String) -> String {
        let error = #expect(throws: ConfigError.self) { try parse(yaml) }
        return error?.description ?? ""
    }

    @Test func addressesAreKeptInOrder() throws {
        let configuration = try parse(
            """
            verifier:
              kind: http
              urls: [https://site-a.example/verify, "https://site-b.example:8443/verify"]
            events: {urls: [https://site-a.example/v1/events, https://site-b.example:8443/v1/events]}
            """)
        guard case .http(let http) = configuration.verifier else {
            Issue.record("not http")
            return
        }
        #expect(http.urls == ["https://site-a.example/verify", "https://site-b.example:8443/verify"])
        #expect(configuration.daemon.events?.url == "https://site-a.example/v1/events")
        #expect(configuration.daemon.events?.otherURLs == ["https://site-b.example:8443/v1/events"])
        // One address as before.
        guard case .http(let one) = try parse("verifier: {kind: http, url: https://site-a.example/verify}\n").verifier else { return }
        #expect(one.urls == ["https://site-a.example/verify"])
    }

    @Test func eachWrongAddressIsNamedByItsPlace() {
        #expect(
            problem("verifier: {kind: http, urls: [https://a.example/verify, http://192.0.2.7/verify]}\n").contains(
                "verifier.urls[1]: plain http:// to 192.0.2.7 would send PINs unencrypted"))
        #expect(
            problem("verifier: {kind: http, url: https://a.example/verify, urls: [https://b.example/verify]}\n").contains(
                "verifier.urls: and url are alternatives"))
        #expect(problem("verifier: {kind: http, urls: []}\n").contains("verifier.urls: must be a list of 1 to 4 addresses"))
        #expect(problem("verifier: {kind: http, urls: https://a.example/verify}\n").contains("verifier.urls: must be a list"))
        #expect(
            problem("verifier: {kind: http, urls: [https://a.example/verify, https://a.example/verify]}\n").contains(
                "verifier.urls[1]: 'https://a.example/verify' is listed twice"))
        #expect(
            problem("verifier: {kind: demo}\nevents: {urls: [https://a.example/v1/events, http://192.0.2.7/v1/events]}\n").contains(
                "events.urls[1]: plain http:// to 192.0.2.7 would send PINs unencrypted; use https:// or set events.allow_insecure_http: true"))
        #expect(problem("verifier: {kind: http}\n").contains("verifier.url: is required with kind: http"))
    }
}
