import Foundation
import HTTPTypes
import HummingbirdTesting
import KeypadTestSupport
import KioskPadAccess
import SiteCore
import Testing
import VerifierTestSupport

@testable import SiteConsole

/// Logins, sessions and forms: what keeps the console to its administrators.
@Suite("Site console: login, sessions, CSRF, throttling", .heavy)
struct ConsoleAuthTests {
    @Test("A login makes an HttpOnly, SameSite=Strict session; without one every page sends you to the login", arguments: StoreUnderTest.Kind.allCases)
    func login(kind: StoreUnderTest.Kind) async throws {
        try await ConsoleHarness.withConsole(kind) { _, client in
            let browser = Browser(client)
            let before = try await browser.get("/console/users")
            #expect(before.status == .seeOther && before.headers[.location] == "/console/login")
            #expect(try await browser.get("/console/doors.json").status == .unauthorized)
            let response = try await browser.logIn()
            #expect(response.status == .seeOther && response.headers[.location] == "/console/doors")
            let cookie = response.headers[values: .setCookie].first { $0.hasPrefix("kp_session=") } ?? ""
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/console/"))
            #expect(!cookie.contains("Secure"), "plain loopback: a Secure cookie would not come back")
            let page = try await browser.get("/console/users")
            #expect(page.status == .ok && String(buffer: page.body).contains("id=\"admin-name\">alice<"))
            #expect(page.headers[.contentSecurityPolicy]?.contains("script-src 'self'") == true)
            #expect(page.headers[.cacheControl] == "no-store")
        }
    }

    /// Taken from the router itself, so a route added outside the group behind the login fails here.
    @Test("Every route but the login and the static files needs a session: a page sends you to the login, live data answers 401")
    func everyRouteButTheLoginNeedsASession() async throws {
        try await ConsoleHarness.withConsole(.sqlite) { harness, client in
            let browser = Browser(client)
            // The provider's sign-in (begun and finished before any session: 404 without server.console.openid).
            let open: Set<String> = [
                "GET /console", "GET /console/login", "POST /console/login", "GET /console/static/console.css", "GET /console/static/console.js",
                "GET /console/login/provider", "GET /console/login/callback",
            ]
            #expect(open.isSubset(of: harness.routes), "\(harness.routes)")
            for path in ["/console/login/provider", "/console/login/callback"] {
                #expect(try await browser.get(path).status == .notFound, "\(path) without a provider configured")
            }
            let guarded = harness.routes.filter { !open.contains($0) }
            #expect(guarded.count == 51 + 57, "the console's 51 and the management API's 57: \(guarded)")
            for route in guarded {
                // A path parameter (`{name}`) filled in, as a client would.
                let parts = route.replacingOccurrences(of: #"\{[a-z]+\}"#, with: "ana", options: .regularExpression).split(
                    separator: " ", maxSplits: 1
                ).map(String.init)
                if parts[1].hasPrefix("/api/") {
                    // The API's routes need a token instead (ManagementAPITests): 401 without one.
                    let answer = try await client.execute(uri: parts[1], method: HTTPRequest.Method(parts[0]) ?? .get, headers: [:], body: nil)
                    #expect(answer.status == .unauthorized && answer.headers[.wwwAuthenticate] != nil, "\(route): \(answer.status)")
                    continue
                }
                let answer = parts[0] == "GET" ? try await browser.get(parts[1]) : try await browser.post(parts[1], [("csrf", "x")])
                if parts[1].hasSuffix(".json") {
                    #expect(answer.status == .unauthorized, "\(route): \(answer.status)")
                } else {
                    #expect(answer.status == .seeOther && answer.headers[.location] == "/console/login", "\(route): \(answer.status)")
                }
            }
        }
    }

    @Test("Wrong password, unknown name, a login form from elsewhere: no session", arguments: StoreUnderTest.Kind.allCases)
    func refusedLogins(kind: StoreUnderTest.Kind) async throws {
        try await ConsoleHarness.withConsole(kind) { harness, client in
            let browser = Browser(client)
            #expect(try await browser.logIn(password: "wrong password here").status == .unauthorized)
            #expect(try await browser.logIn("mallory").status == .unauthorized)
            // A form posted from another site has no login cookie to match its token.
            let forged = Browser(client)
            let refused = try await forged.post("/console/login", [("login_token", "guess"), ("name", "alice"), ("password", ConsoleHarness.password)])
            #expect(refused.status == .forbidden && forged.cookies["kp_session"] == nil)
            #expect(browser.cookies["kp_session"] == nil)
            let audit = try await harness.under.auditRecords().filter { $0["action"] == "console_login" }
            #expect(audit.map { $0["result"] ?? "" } == ["wrong password", "unknown administrator"])
            #expect(!audit.description.contains(ConsoleHarness.password) && !audit.description.contains("wrong password here"))
        }
    }

    @Test("A cookie planted before login is never promoted; logging in ends the browser's old session", arguments: StoreUnderTest.Kind.allCases)
    func sessionFixation(kind: StoreUnderTest.Kind) async throws {
        try await ConsoleHarness.withConsole(kind) { _, client in
            let victim = Browser(client)
            victim.cookies["kp_session"] = "planted-by-attacker"
            try await victim.logIn()
            let issued = try #require(victim.cookies["kp_session"])
            #expect(issued != "planted-by-attacker")
            let attacker = Browser(client)
            attacker.cookies["kp_session"] = "planted-by-attacker"
            #expect(try await attacker.get("/console/users").status == .seeOther)
            // A second login from a browser holding a live session: the old token stops working.
            let stolen = Browser(client)
            stolen.cookies["kp_session"] = issued
            #expect(try await stolen.get("/console/users").status == .ok)
            try await victim.logIn()
            #expect(victim.cookies["kp_session"] != issued)
            #expect(try await stolen.get("/console/users").status == .seeOther)
            #expect(try await victim.get("/console/users").status == .ok)
        }
    }

    @Test("A change without the session's form token is refused and changes nothing", arguments: StoreUnderTest.Kind.allCases)
    func csrf(kind: StoreUnderTest.Kind) async throws {
        try await ConsoleHarness.withConsole(kind) { harness, client in
            let browser = Browser(client)
            try await browser.logIn()
            let fields = [("name", "carol"), ("pin", "4821"), ("pin_again", "4821")]
            #expect(try await browser.post("/console/users", fields).status == .forbidden)
            #expect(try await browser.post("/console/users", fields + [("csrf", "not-the-token")]).status == .forbidden)
            #expect(try await harness.under.administration.list().isEmpty)
            let token = try await browser.csrf()
            #expect(token.count >= 40)
            let added = try await browser.post("/console/users", fields + [("csrf", token)])
            #expect(added.status == .seeOther)
            #expect(try await harness.under.administration.list().map(\.name) == ["carol"])
            // Logging out needs the token too.
            #expect(try await browser.post("/console/logout", []).status == .forbidden)
            #expect(try await browser.post("/console/logout", [("csrf", token)]).status == .seeOther)
            #expect(try await browser.get("/console/users").status == .seeOther)
        }
    }

    @Test("Five wrong passwords lock the administrator; ten failures lock the address", arguments: StoreUnderTest.Kind.allCases)
    func throttling(kind: StoreUnderTest.Kind) async throws {
        try await ConsoleHarness.withConsole(kind) { harness, client in
            let browser = Browser(client)
            for _ in 0..<5 { #expect(try await browser.logIn(password: "not the password").status == .unauthorized) }
            let locked = try await browser.logIn()
            // Locked, even with the right password: answered as an unknown name is.
            let unknown = try await Browser(client).logIn("nobody")
            #expect(locked.status == .unauthorized && unknown.status == .unauthorized)
            #expect(Self.errorText(locked) == Self.errorText(unknown) && Self.errorText(locked).contains("locked for 15 minutes"))
            #expect(browser.cookies["kp_session"] == nil)
            // After the lockout the right password works, and clears the count.
            harness.clock.advance(901)
            #expect(try await browser.logIn().status == .seeOther)
            #expect(try await harness.under.console.admin(name: "alice")?.failedLogins == 0)
            // Guessing names from one address: refused before any password is checked.
            let guesser = Browser(client)
            for index in 0..<10 { #expect(try await guesser.logIn("admin\(index)").status == .unauthorized) }
            #expect(try await guesser.logIn().status == .tooManyRequests)
            harness.clock.advance(601)
            #expect(try await guesser.logIn().status == .seeOther)
        }
    }

    @Test("Removing an administrator ends their sessions; the session's idle limit logs out", arguments: [StoreUnderTest.Kind.sqlite])
    func sessionsEnd(kind: StoreUnderTest.Kind) async throws {
        var options = ConsoleOptions()
        options.sessionIdle = 600
        try await ConsoleHarness.withConsole(kind, options: options) { harness, client in
            let browser = Browser(client)
            try await browser.logIn()
            harness.clock.advance(599)
            #expect(try await browser.get("/console/users").status == .ok)
            harness.clock.advance(599)
            #expect(try await browser.get("/console/users").status == .ok, "each request moves the idle deadline")
            harness.clock.advance(601)
            #expect(try await browser.get("/console/users").status == .seeOther)
            try await browser.logIn()
            #expect(try await harness.under.console.removeAdmin(name: "alice"))
            #expect(try await browser.get("/console/users").status == .seeOther)
        }
    }

    @Test("Over TLS the session cookie is Secure; behind the trusted proxy only X-Forwarded-Proto: https is served")
    func transport() async throws {
        var tls = ConsoleOptions()
        tls.tls = true
        try await ConsoleHarness.withConsole(.sqlite, options: tls) { _, client in
            let response = try await Browser(client).logIn()
            #expect(response.headers[values: .setCookie].first { $0.hasPrefix("kp_session=") }?.contains("; Secure") == true)
        }
        var proxied = ConsoleOptions()
        // The live test server listens on, and its client comes from, the first address of
        // "localhost": 127.0.0.1 here, ::1 in Debian trixie's default /etc/hosts.
        proxied.trustedProxy = LoopbackSocket.firstAddressOfLocalhost()
        try await ConsoleHarness.withConsole(.sqlite, options: proxied) { _, client in
            let direct = Browser(client)
            #expect(try await direct.get("/console/login").status == .forbidden)
            let https: HTTPFields = [HTTPField.Name("X-Forwarded-Proto")!: "https", HTTPField.Name("X-Forwarded-For")!: "192.0.2.7"]
            let page = try await direct.get("/console/login", headers: https)
            #expect(page.status == .ok)
            #expect(page.headers[values: .setCookie].first?.contains("; Secure") == true)
        }
    }

    @Test("Behind the trusted proxy a login counts for the forwarded address, and a forwarded word that is no address for the proxy")
    func forwardedSource() async throws {
        var proxied = ConsoleOptions()
        let proxy = LoopbackSocket.firstAddressOfLocalhost()
        proxied.trustedProxy = proxy
        try await ConsoleHarness.withConsole(.sqlite, options: proxied) { harness, client in
            for forwarded in ["192.0.2.7", "<b>not an address</b>", "203.0.113.9, 192.0.2.8"] {
                let browser = Browser(client)
                let headers: HTTPFields = [HTTPField.Name("X-Forwarded-Proto")!: "https", HTTPField.Name("X-Forwarded-For")!: forwarded]
                let form = try await browser.get("/console/login", headers: headers)
                let token = Browser.field("login_token", in: String(buffer: form.body)) ?? ""
                let answer = try await browser.post(
                    "/console/login", [("login_token", token), ("name", "alice"), ("password", "not the password")], headers: headers)
                #expect(answer.status == .unauthorized)
            }
            let sources = try await harness.under.auditRecords().filter { $0["action"] == "console_login" }.map { $0["source"] ?? "" }
            #expect(sources == ["192.0.2.7", proxy, "192.0.2.8"])
        }
    }

    @Test("An administrator with TOTP needs the app's code too, and a code works once", arguments: StoreUnderTest.Kind.allCases)
    func administratorTOTP(kind: StoreUnderTest.Kind) async throws {
        try await ConsoleHarness.withConsole(kind) { harness, client in
            let secret = TOTP.newSecret()
            #expect(try await harness.under.console.setAdminTOTP(name: "alice", secret: secret))
            #expect(try await !harness.under.console.setAdminTOTP(name: "nobody", secret: secret))
            let totp = TOTP(secret: secret)
            let code = totp.code(step: totp.step(at: Int(harness.clock.now.timeIntervalSince1970)))
            let browser = Browser(client)
            #expect(try await browser.logIn().status == .unauthorized, "the password alone")
            func logIn(_ browser: Browser, code: String, password: String = ConsoleHarness.password) async throws -> HTTPResponse.Status {
                let form = try await browser.get("/console/login")
                let token = Browser.field("login_token", in: String(buffer: form.body)) ?? ""
                return try await browser.post("/console/login", [("login_token", token), ("name", "alice"), ("password", password), ("code", code)]).status
            }
            #expect(try await logIn(browser, code: code, password: "not the password") == .unauthorized)
            #expect(try await logIn(browser, code: String(code.reversed()) == code ? "000000" : String(code.reversed())) == .unauthorized)
            #expect(try await logIn(browser, code: code) == .seeOther)
            let replay = Browser(client)
            #expect(try await logIn(replay, code: code) == .unauthorized, "the same code a second time")
            let results = try await harness.under.auditRecords().filter { $0["action"] == "console_login" }.map { $0["result"] ?? "" }
            #expect(results == ["wrong code", "wrong password", "wrong code", "ok", "code used before"])
            harness.clock.advance(30)
            #expect(try await logIn(replay, code: totp.code(step: totp.step(at: Int(harness.clock.now.timeIntervalSince1970)))) == .seeOther)
        }
    }

    @Test("An unknown name is checked at the administrators' own iteration count, not a fixed one")
    func decoyCostsWhatARealLoginCosts() async throws {
        let under = try await StoreUnderTest.make(.sqlite)
        let decoy = ConsoleDecoyPassword()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(try await decoy.hash(under.console, now: now).iterations == PINHash.passwordIterations, "no administrator yet")
        #expect(
            try await under.console.addAdmin(
                name: "alice", hash: try PINHash.make(password: Array("pw".utf8), iterations: 2_000), role: .owner, doorGroups: nil))
        #expect(try await decoy.hash(under.console, now: now.addingTimeInterval(61)).iterations == 2_000)
        let hash = try await decoy.hash(under.console, now: now.addingTimeInterval(62))
        #expect(!hash.matches(password: Array("pw".utf8)), "random: nothing matches it")
        await under.destroy()
    }

    /// The error paragraph of a login page (the page also carries a fresh random token).
    static func errorText(_ response: TestResponse) -> String {
        let page = String(buffer: response.body)
        guard let start = page.range(of: "class=\"error\""), let end = page[start.upperBound...].range(of: "</") else { return page }
        return String(page[start.upperBound..<end.lowerBound])
    }

    @Test("A page that does not exist, or a wrong method, still carries the security headers")
    func errorsCarryTheSecurityHeaders() async throws {
        try await ConsoleHarness.withConsole(.sqlite) { _, client in
            let browser = Browser(client)
            let missing = try await browser.get("/console/no-such-page")
            #expect(missing.status == .notFound)
            #expect(missing.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true && missing.headers[.cacheControl] == "no-store")
            let wrongMethod = try await browser.post("/console/doors.json", [])
            #expect(wrongMethod.headers[.contentSecurityPolicy] != nil, "\(wrongMethod.status)")
        }
    }
}
