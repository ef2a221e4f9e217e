import Foundation
import HTTPTypes
import HummingbirdTesting
import JWTKit
import KioskPadAccess
import SiteCore
import SiteSignIn
import Synchronization
import Testing
import VerifierTestSupport

/// The console's routes for a sign-in through the identity provider, on both stores, with a
/// provider played in the process (its discovery, JWKS and token endpoint; tokens signed by
/// jwt-kit): an account made with the mapped role and re-roled at the next sign-in; a session
/// that ends at `session_minutes`; a local account's name never taken over; no password for a
/// provider's account. The real provider in a real browser: Tests/Browser/openid_browser.py.
@Suite("Site console: sign-in through the identity provider", .serialized)
struct ProviderSignInTests {
    static let issuer = "https://login.example.test"

    /// The provider's side: who the next code signs in, with which groups.
    final class PlayedProvider: OpenIDTransport, Sendable {
        let key = ES256PrivateKey()
        let codes = Mutex<[String: (nonce: String, name: String, groups: [String])]>([:])
        let clock: ManualTime

        init(clock: ManualTime) { self.clock = clock }

        func get(_ url: String) async throws -> (status: Int, body: [UInt8]) {
            if url.hasSuffix("/.well-known/openid-configuration") {
                let issuer = ProviderSignInTests.issuer
                let body =
                    #"{"issuer":"\#(issuer)","authorization_endpoint":"\#(issuer)/authorize","token_endpoint":"\#(issuer)/token","jwks_uri":"\#(issuer)/jwks","code_challenge_methods_supported":["S256"]}"#
                return (200, Array(body.utf8))
            }
            let (x, y) = key.publicKey.parameters!
            return (200, Array(#"{"keys":[{"kty":"EC","crv":"P-256","alg":"ES256","kid":"k1","x":"\#(x)","y":"\#(y)"}]}"#.utf8))
        }

        func postForm(_ url: String, fields: [(String, String)], authorization: String?) async throws -> (status: Int, body: [UInt8]) {
            let form = Dictionary(fields, uniquingKeysWith: { $1 })
            guard let code = form["code"], let person = codes.withLock({ $0.removeValue(forKey: code) }), form["code_verifier"]?.count == 43 else {
                return (400, Array(#"{"error":"invalid_grant"}"#.utf8))
            }
            let claims = IDTokenClaims(
                issuer: ProviderSignInTests.issuer, subject: "sub-" + person.name, audience: ["kioskpad-console"], expires: clock.now.addingTimeInterval(300),
                issuedAt: clock.now, nonce: person.nonce, texts: ["preferred_username": [person.name], "groups": person.groups])
            let keys = JWTKeyCollection()
            await keys.add(ecdsa: key, kid: "k1")
            let token = try await keys.sign(claims, kid: "k1")
            return (200, Array(#"{"id_token":"\#(token)","token_type":"Bearer","access_token":"a"}"#.utf8))
        }
    }

    static func console(_ provider: PlayedProvider, clock: ManualTime) -> OpenIDSignIn {
        var options = OpenIDSignInOptions(
            issuer: issuer, clientID: "kioskpad-console", clientSecret: "s", redirectURL: "https://console.example.test/console/login/callback")
        options.roles = [RoleGrant(claimValue: "owners", role: .owner), RoleGrant(claimValue: "reception", role: .host)]
        options.sessionLifetime = 900
        return OpenIDSignIn(options: options, transport: provider, now: { clock.now })
    }

    /// The provider the console was made with, for the test to play it.
    final class Played: Sendable {
        let provider = Mutex<PlayedProvider?>(nil)
        var make: @Sendable (ManualTime) -> OpenIDSignIn {
            { clock in
                let provider = PlayedProvider(clock: clock)
                self.provider.withLock { $0 = provider }
                return ProviderSignInTests.console(provider, clock: clock)
            }
        }
    }

    /// Begins a sign-in in `browser`, has the provider sign in `name` with `groups`, and follows the callback.
    static func signIn(_ browser: Browser, _ provider: PlayedProvider, as name: String, groups: [String]) async throws -> TestResponse {
        let begun = try await browser.get("/console/login/provider")
        let away = try #require(begun.headers[.location].flatMap(URLComponents.init(string:)))
        let query = Dictionary((away.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        #expect(query["code_challenge_method"] == "S256" && query["code_challenge"]?.count == 43 && query["response_type"] == "code")
        let code = UUID().uuidString
        provider.codes.withLock { $0[code] = (query["nonce"] ?? "", name, groups) }
        return try await browser.get("/console/login/callback?code=\(code)&state=\(query["state"] ?? "")")
    }

    @Test("A person signed in through the provider gets the mapped role, again at each sign-in, for session_minutes", arguments: StoreUnderTest.Kind.allCases)
    func theMappedRoleHoldsUntilTheSessionEnds(kind: StoreUnderTest.Kind) async throws {
        let played = Played()
        try await ConsoleHarness.withConsole(kind, signIn: played.make) { harness, client in
            let provider = try #require(played.provider.withLock { $0 })
            let browser = Browser(client)
            let signedIn = try await Self.signIn(browser, provider, as: "olga@example.test", groups: ["staff", "reception"])
            #expect(signedIn.status == .ok && String(buffer: signedIn.body).contains("Signed in as olga@example.test (host)"))
            #expect(String(buffer: signedIn.body).contains("url=/console/visitors"), "the page goes on to the host's home")
            #expect(try await browser.get("/console/visitors").status == .ok)
            #expect(try await browser.get("/console/users").status == .forbidden)
            let account = try #require(try await harness.under.console.admin(name: "olga@example.test"))
            #expect(account.role == .host && account.provider == Self.issuer)

            // Moved to owners at the provider: the next sign-in makes her an owner.
            let again = Browser(client)
            _ = try await Self.signIn(again, provider, as: "olga@example.test", groups: ["owners"])
            #expect(try await again.get("/console/users").status == .ok)
            #expect(try await harness.under.console.admin(name: "olga@example.test")?.role == .owner)

            // The session ends session_minutes (15) after sign-in, however busy: then the provider is asked again.
            for _ in 0..<8 {
                harness.clock.advance(110)
                #expect(try await again.get("/console/users").status == .ok)
            }
            harness.clock.advance(21)
            #expect(try await again.get("/console/users").status == .seeOther, "past 15 minutes the session is gone")

            // A provider's account takes no password.
            #expect(try await Browser(client).logIn("olga@example.test", password: "anything").status == .unauthorized)
            let records = try await harness.under.auditRecords()
            #expect(records.contains { $0["action"] == "admin_provider_sign_in" && $0["admin"] == "openid:login.example.test" && $0["role"] == "owner" })
            #expect(records.contains { $0["action"] == "console_login" && $0["method"] == "openid" && $0["admin"] == "olga@example.test" })
        }
    }

    @Test("A provider's person with a local account's name, or with no mapped group, is refused and audited; nothing changes")
    func localAccountsAreNeverTakenOver() async throws {
        let played = Played()
        try await ConsoleHarness.withConsole(.sqlite, signIn: played.make) { harness, client in
            let provider = try #require(played.provider.withLock { $0 })
            let alice = try await Self.signIn(Browser(client), provider, as: "alice", groups: ["reception"])
            #expect(alice.status == .forbidden && String(buffer: alice.body).contains("is a local account"))
            #expect(try await harness.under.console.admin(name: "alice")?.role == .owner, "alice is still the local owner")
            let nobody = try await Self.signIn(Browser(client), provider, as: "nora", groups: ["marketing"])
            #expect(nobody.status == .forbidden && String(buffer: nobody.body).contains("none of your groups gives a role"))
            #expect(try await harness.under.console.admin(name: "nora") == nil)
            let forged = try await Browser(client).get("/console/login/callback?code=x&state=y")
            #expect(forged.status == .forbidden && String(buffer: forged.body).contains("no sign-in was begun in this browser"))
            let denied = try await Browser(client).get("/console/login/callback?error=access_denied&state=x")
            #expect(denied.status == .forbidden && String(buffer: denied.body).contains("answered access_denied"))
            let records = try await harness.under.auditRecords().filter { $0["action"] == "console_login" }
            #expect(
                records.map { $0["result"] ?? "" } == ["account refused", "no role mapped", "bad sign-in request", "bad sign-in request"], "\(records)")
        }
    }
}
