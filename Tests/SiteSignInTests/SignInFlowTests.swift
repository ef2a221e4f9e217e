import Foundation
import KioskPadEndpoints
import SiteCore
import SiteSignIn
import Testing

/// The pieces of the Authorization Code flow around the ID token: the discovery document held
/// to its issuer, PKCE's S256 challenge as RFC 7636 computes it, the pending sign-in's cookie,
/// the provider reached only as the site's egress rule allows, and the mapped role.
@Suite("Sign-in flow")
struct SignInFlowTests {
    @Test func theS256ChallengeIsRFC7636s() {
        // RFC 7636, appendix B.
        let pending = PendingSignIn(state: "s", nonce: "n", verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(pending.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    @Test func aPendingSignInRoundTripsThroughItsCookieAndNothingElseDoes() throws {
        let pending = PendingSignIn.fresh()
        #expect(PendingSignIn(cookie: pending.cookie) == pending)
        #expect(PendingSignIn(cookie: "a.b.c") == nil && PendingSignIn(cookie: pending.cookie + ".x") == nil)
        #expect(PendingSignIn(cookie: pending.cookie.replacingOccurrences(of: ".", with: "")) == nil)
        let url = try #require(
            pending.authorizationURL(
                endpoint: "https://op.test/auth?tenant=a", clientID: "c+1", redirectURL: "https://x/console/login/callback", scopes: ["openid", "email"]))
        let items = Dictionary((URLComponents(string: url)?.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        #expect(items["tenant"] == "a" && items["client_id"] == "c+1" && items["scope"] == "openid email" && items["state"] == pending.state)
        #expect(items["code_challenge"] == pending.challenge && items["code_challenge_method"] == "S256" && items["nonce"] == pending.nonce)
    }

    @Test func aDiscoveryDocumentForAnotherIssuerOrWithoutS256IsRefused() throws {
        let body = { (issuer: String, methods: String) in
            Array(
                #"{"issuer":"\#(issuer)","authorization_endpoint":"a","token_endpoint":"t","jwks_uri":"j","code_challenge_methods_supported":\#(methods)}"#.utf8
            )
        }
        #expect(try OpenIDProviderMetadata.read(body("https://op.test", #"["S256"]"#), issuer: "https://op.test").jwksURI == "j")
        #expect(throws: SignInRefusal.self) { try OpenIDProviderMetadata.read(body("https://evil.test", #"["S256"]"#), issuer: "https://op.test") }
        #expect(throws: SignInRefusal.self) { try OpenIDProviderMetadata.read(body("https://op.test", #"["plain"]"#), issuer: "https://op.test") }
        #expect(throws: SignInRefusal.self) { try OpenIDProviderMetadata.read(Array(#"{"issuer":"https://op.test"}"#.utf8), issuer: "https://op.test") }
    }

    @Test func aProviderInsideTheSitesNetworkIsRefusedUnlessListed() async throws {
        let refused = OpenIDHTTPTransport(policy: WebhookTargetPolicy(section: "server.console.openid", sent: "requests to the identity provider"))
        await #expect(throws: SignInRefusal.self) { try await refused.get("https://127.0.0.1:1/.well-known/openid-configuration") }
        do {
            _ = try await refused.get("https://10.0.0.7/.well-known/openid-configuration")
            Issue.record("a private address was fetched")
        } catch {
            #expect("\(error)".contains("server.console.openid.allow_targets"), "\(error)")
        }
        let resolving = OpenIDHTTPTransport(
            policy: WebhookTargetPolicy(section: "server.console.openid", sent: "requests to the identity provider"),
            resolve: { _ in [IPAddress(literal: "192.168.1.9")!] })
        do {
            _ = try await resolving.get("https://login.corp.test/.well-known/openid-configuration")
            Issue.record("a name resolving inside the network was fetched")
        } catch {
            #expect("\(error)".contains("login.corp.test resolves to 192.168.1.9"), "\(error)")
        }
    }

    @Test func theFirstListedGroupAPersonHoldsDecides() {
        let grants = [RoleGrant(claimValue: "owners", role: .owner), RoleGrant(claimValue: "guards", role: .guard, doorGroups: ["b"])]
        #expect(RoleGrant.first(in: grants, for: ["guards", "owners"])?.role == .owner)
        #expect(RoleGrant.first(in: grants, for: ["guards"])?.doorGroups == ["b"])
        #expect(RoleGrant.first(in: grants, for: ["staff"]) == nil)
        #expect(ProviderAccountName.isValid("ann.lee+ops@example.com") && !ProviderAccountName.isValid("ann lee") && !ProviderAccountName.isValid(""))
    }
}
