import KioskPadConfig
import SiteConfig
import Testing

/// `server.console`: off by default, its own listener, and never in clear off loopback.
@Suite("Verifier config: the site console")
struct ConsoleConfigTests {
    let base = "server:\n  allow_unsigned: true\n"

    func problem(_ yaml: String) -> String {
        let error = #expect(throws: ConfigError.self) { try ConfigLoader.parseServer(yaml: base + yaml, source: "v.yaml") }
        return error?.description ?? ""
    }

    @Test func theConsoleIsOffByDefaultAndListensOnLoopback8788() throws {
        let settings = try ConfigLoader.parseServer(yaml: base, source: "v.yaml").console
        #expect(!settings.enabled && settings.host == "127.0.0.1" && settings.port == 8788 && !settings.usesTLS)
        let on = try ConfigLoader.parseServer(
            yaml: base + "  console:\n    enabled: true\n    session_idle_minutes: 10\n    silent_after_minutes: 5\n", source: "v.yaml"
        ).console
        #expect(on.enabled && on.sessionIdle == 600 && on.silentAfter == 300 && on.sessionLifetime == 43_200)
    }

    @Test func offLoopbackNeedsTLSAndTheFilesAreResolvedBesideTheConfig() throws {
        #expect(
            problem("  console:\n    enabled: true\n    listen: 0.0.0.0:8788\n").contains(
                "server.console.listen: '0.0.0.0:8788' is off loopback: the console's password and session would cross the network in clear"))
        let tls = try ConfigLoader.parseServer(
            yaml: base + "  console:\n    enabled: true\n    listen: 0.0.0.0:8443\n    tls:\n      cert_file: console.pem\n      key_file: console.key\n",
            source: "v.yaml", baseDirectory: "/etc/kioskpad"
        ).console
        #expect(tls.usesTLS && tls.tlsCertFile == "/etc/kioskpad/console.pem" && tls.tlsKeyFile == "/etc/kioskpad/console.key")
        #expect(problem("  console:\n    tls:\n      cert_file: c.pem\n").contains("server.console.tls.key_file: is required with tls"))
    }

    @Test func aTrustedProxyIsALoopbackAddressAndTheConsoleThenListensOnLoopback() throws {
        let proxied = try ConfigLoader.parseServer(yaml: base + "  console:\n    enabled: true\n    trusted_proxy: \"::1\"\n", source: "v.yaml").console
        #expect(proxied.trustedProxy == "::1")
        #expect(problem("  console:\n    trusted_proxy: 192.0.2.10\n").contains("server.console.trusted_proxy: '192.0.2.10' is not a loopback address"))
        #expect(
            problem("  console:\n    trusted_proxy: 127.0.0.1\n    listen: 0.0.0.0:8788\n    tls:\n      cert_file: c\n      key_file: k\n")
                .contains("server.console.listen: must be a loopback address with trusted_proxy"))
    }

    @Test func theConsoleNeedsAPortOfItsOwnAndUnknownKeysAreNamed() throws {
        #expect(problem("  listen: 127.0.0.1:8788\n  console:\n    enabled: true\n").contains("server.console.listen: is the doors' listen address too"))
        #expect(problem("  console:\n    enable: true\n").contains("server.console.enable"))
    }
}
