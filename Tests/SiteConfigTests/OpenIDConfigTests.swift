import KioskPadConfig
import KioskPadEndpoints
import SiteConfig
import Testing

/// `server.console.openid`: the provider, the client, the callback and the role lines read,
/// each mistake named by its key path (issue 81).
@Suite("Verifier config: sign-in through the identity provider")
struct OpenIDConfigTests {
    let base = "server:\n  allow_unsigned: true\n  console:\n    enabled: true\n    openid:\n"
    let good = """
              issuer: https://login.example.com/realms/site
              client_id: kioskpad-console
              client_secret_file: /etc/kioskpad/openid-secret
              redirect_url: https://console.example.com/console/login/callback
              allow_targets: [10.1.2.3]
              roles:
                - {claim: kioskpad-owners, role: owner}
                - {claim: building-b, role: guard, door_groups: [building-b]}

        """

    func problems(_ body: String) -> String {
        do {
            _ = try ConfigLoader.parseServer(yaml: base + body, source: "v.yaml")
            return ""
        } catch {
            return "\(error)"
        }
    }

    @Test func aProviderIsReadWithItsRolesInOrder() throws {
        let settings = try #require(try ConfigLoader.parseServer(yaml: base + good, source: "/etc/kioskpad/v.yaml").console.openID)
        #expect(settings.issuer == "https://login.example.com/realms/site" && settings.clientID == "kioskpad-console")
        #expect(settings.clientSecret == .file("/etc/kioskpad/openid-secret"))
        #expect(settings.roles.map(\.claim) == ["kioskpad-owners", "building-b"] && settings.roles[1].doorGroups == ["building-b"])
        #expect(settings.roles[1].path == "server.console.openid.roles[1]")
        #expect(settings.sessionLifetime == 900 && settings.clockSkew == 60 && settings.scopes == ["openid", "profile", "email"])
        #expect(settings.allowTargets == [AllowedTarget("10.1.2.3")!])
    }

    @Test func noOpenIDSectionMeansLocalAccountsOnly() throws {
        #expect(try ConfigLoader.parseServer(yaml: "server:\n  allow_unsigned: true\n  console:\n    enabled: true\n", source: "v.yaml").console.openID == nil)
    }

    @Test func requiredKeysAreNamed() {
        let text = problems("      label: x\n")
        for key in ["openid.issuer", "openid.client_id", "openid.redirect_url", "openid.roles"] {
            #expect(text.contains(key), "\(key): \(text)")
        }
    }

    @Test func aCallbackElsewhereOrPlainHTTPOffLoopbackIsRefused() {
        let elsewhere = problems(good.replacingOccurrences(of: "/console/login/callback", with: "/callback"))
        #expect(elsewhere.contains("redirect_url") && elsewhere.contains("/console/login/callback"), "\(elsewhere)")
        let clear = problems(good.replacingOccurrences(of: "https://login.example.com", with: "http://login.example.com"))
        #expect(clear.contains("openid.issuer") && clear.contains("plain http://"), "\(clear)")
        #expect(problems(good.replacingOccurrences(of: "https://login.example.com", with: "http://127.0.0.1:9000")).isEmpty)
    }

    @Test func aSecretWrittenIntoTheFileIsRefused() {
        let text = problems(good.replacingOccurrences(of: "client_secret_file: /etc/kioskpad/openid-secret", with: "client_secret: hunter2"))
        #expect(text.contains("client_secret") && text.contains("never read from the config file") && !text.contains("hunter2"), "\(text)")
    }

    @Test func aRoleLineWithoutItsPartsOrWithAStrayKeyIsNamed() {
        let text = problems(good.replacingOccurrences(of: "{claim: kioskpad-owners, role: owner}", with: "{claim: kioskpad-owners, rol: owner}"))
        #expect(text.contains("roles[0].role") && text.contains("roles[0].rol"), "\(text)")
        #expect(problems(good + "      scopes: [profile]\n").contains("must include openid"))
    }
}
