import DoorConfig
import KioskPadConfig
import Testing

/// `verifier.offline`: off unless asked for; with `fallback`, a pinned key, a signed
/// verifier and a replica URL beside `/verify`; every bad key named.
@Suite("Terminal config: verifier.offline")
struct OfflineConfigTests {
    let key = "ed25519:w/fVfpaGzk/7bDRzbf0cns/N50w7UWH64d4IjPYb2Io="

    func http(_ offline: String, secret: Bool = true) -> String {
        "terminal_id: front-door\nverifier:\n  kind: http\n  url: https://verifier.example:8443/verify?x=1\n"
            + (secret ? "  secret_file: /etc/kioskpad/secret\n" : "") + offline
    }

    func problem(_ yaml: String) -> String {
        let error = #expect(throws: ConfigError.self) { try ConfigLoader.parse(yaml: yaml, source: "t.yaml") }
        return error?.description ?? ""
    }

    func offline(_ yaml: String) throws -> OfflineConfiguration? {
        guard case .http(let settings) = try ConfigLoader.parse(yaml: yaml, source: "t.yaml").verifier else { return nil }
        return settings.offline
    }

    @Test func fallbackTakesTheVerifiersOriginAndSensibleDefaults() throws {
        #expect(try offline(http("")) == nil)
        #expect(try offline(http("  offline: {mode: off}\n")) == nil)
        let on = try #require(try offline(http("  offline: {mode: fallback, public_key: \"\(key)\"}\n")))
        #expect(on.url == "https://verifier.example:8443/v1/credentials")
        #expect(on.syncInterval == .seconds(60) && on.maxAge == .seconds(24 * 3600))
        let tuned = try #require(
            try offline(
                http("  offline: {mode: fallback, public_key: \"\(key)\", url: \"https://replicas.example/v1/credentials\", sync_s: 300, max_age_h: 72}\n")))
        #expect(tuned.url == "https://replicas.example/v1/credentials" && tuned.syncInterval == .seconds(300) && tuned.maxAge == .seconds(72 * 3600))
    }

    @Test func everyBadKeyIsNamed() {
        #expect(problem(http("  offline: {mode: fallback}\n")).contains("verifier.offline.public_key: is required with mode: fallback"))
        #expect(
            problem(http("  offline: {mode: fallback, public_key: \"ed25519:abc\"}\n")).contains(
                "verifier.offline.public_key: must be ed25519: and 32 bytes in base64"))
        #expect(problem(http("  offline: {mode: always, public_key: \"\(key)\"}\n")).contains("verifier.offline.mode: 'always' is not one of: off, fallback"))
        #expect(
            problem(http("  offline: {mode: fallback, public_key: \"\(key)\", max_age_h: 0}\n")).contains(
                "verifier.offline.max_age_h: 0 is out of range 1...720"))
        #expect(
            problem(http("  offline: {mode: fallback, public_key: \"\(key)\", url: \"http://192.0.2.1/v1/credentials\"}\n")).contains("verifier.offline.url:"))
        #expect(
            problem(http("  offline: {mode: fallback, public_key: \"\(key)\"}\n", secret: false)).contains(
                "verifier.offline.mode: fallback needs verifier.secret_file"))
        #expect(problem(http("  offline: {mode: fallback, public_key: \"\(key)\", maxage: 3}\n")).contains("verifier.offline.maxage"))
        #expect(
            problem("terminal_id: d\nverifier:\n  kind: local\n  users_file: u\n  offline: {mode: fallback}\n").contains(
                "verifier.offline: is only used with kind: http"))
    }
}
