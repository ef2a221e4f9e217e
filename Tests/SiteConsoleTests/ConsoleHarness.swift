import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import KioskPadAccess
import KioskPadCore
import KioskPadEndpoints
import Logging
import NIOCore
import SiteConsole
import SiteCore
import SiteSignIn
import Synchronization
import Testing
import VerifierTestSupport

/// A console over a new store (SQLite or PostgreSQL), served on loopback for one test,
/// with administrator `alice` (password ``password``).
struct ConsoleHarness {
    static let password = "correct horse battery staple"
    let under: StoreUnderTest
    let clock: ManualTime
    /// Every route the console's router holds, as `METHOD /path`.
    let routes: [String]

    /// The site's default webhook policy, with every name resolving to one public address
    /// (no lookup leaves the test).
    static let webhookTargets = WebhookTargets(resolve: { _ in [IPAddress(literal: "93.184.215.14")!] })

    static func withConsole(
        _ kind: StoreUnderTest.Kind, options: ConsoleOptions = ConsoleOptions(), signIn: (@Sendable (ManualTime) -> OpenIDSignIn)? = nil,
        _ body: @Sendable (ConsoleHarness, any TestClientProtocol) async throws -> Void
    ) async throws {
        let under = try await StoreUnderTest.make(kind)
        let clock = ManualTime(Date(timeIntervalSince1970: 1_800_000_000))
        #expect(
            try await under.console.addAdmin(
                name: "alice", hash: try PINHash.make(password: Array(password.utf8), iterations: 1_000), role: .owner, doorGroups: nil))
        var services = ConsoleServices(
            administration: under.administration, console: under.console, store: under.store, lookupKey: nil, codeLength: 8, now: { clock.now },
            replica: under.administration as? any ReplicaKeeping, tokens: under.tokens, webhooks: under.webhooks)
        services.webhookTargets = ConsoleHarness.webhookTargets
        services.signIn = signIn?(clock)
        var logger = Logger(label: "console-test")
        logger.logLevel = .critical
        let router = SiteConsole.router(services: services, options: options, logger: logger)
        let routes = router.routes.map { "\($0.method) \($0.path)" }
        let app = Application(router: router, logger: logger)
        do {
            try await app.test(.live) { client in try await body(ConsoleHarness(under: under, clock: clock, routes: routes), client) }
        } catch {
            await under.destroy()
            throw error
        }
        await under.destroy()
    }
}

/// A wall clock a test moves by hand.
final class ManualTime: Sendable {
    private let time: Mutex<Date>
    init(_ start: Date) { time = Mutex(start) }
    var now: Date { time.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { time.withLock { $0 += seconds } }
}

/// What a browser keeps between requests: its cookies. Sends forms as a browser does.
final class Browser: @unchecked Sendable {
    // @unchecked: used by one test task at a time.
    let client: any TestClientProtocol
    var cookies: [String: String] = [:]

    init(_ client: any TestClientProtocol) {
        self.client = client
    }

    func get(_ path: String, headers extra: HTTPFields = [:]) async throws -> TestResponse {
        try await send(path, method: .get, body: nil, headers: extra)
    }

    func post(_ path: String, _ fields: [(String, String)], headers extra: HTTPFields = [:]) async throws -> TestResponse {
        let body = fields.map { "\($0.0)=\(Browser.encode($0.1))" }.joined(separator: "&")
        var headers = extra
        headers[.contentType] = "application/x-www-form-urlencoded"
        return try await send(path, method: .post, body: ByteBuffer(string: body), headers: headers)
    }

    private func send(_ path: String, method: HTTPRequest.Method, body: ByteBuffer?, headers extra: HTTPFields) async throws -> TestResponse {
        var headers = extra
        if !cookies.isEmpty { headers[.cookie] = cookies.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; ") }
        let response = try await client.execute(uri: path, method: method, headers: headers, body: body)
        for value in response.headers[values: .setCookie] {
            let pair = value.split(separator: ";")[0].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(pair[0])
            let content = pair.count > 1 ? String(pair[1]) : ""
            if value.contains("Max-Age=0") || content.isEmpty { cookies[name] = nil } else { cookies[name] = content }
        }
        return response
    }

    /// Logs in as `name`; returns the login POST's response.
    @discardableResult
    func logIn(_ name: String = "alice", password: String = ConsoleHarness.password) async throws -> TestResponse {
        let form = try await get("/console/login")
        let token = Browser.field("login_token", in: String(buffer: form.body)) ?? ""
        return try await post("/console/login", [("login_token", token), ("name", name), ("password", password)])
    }

    /// The session's form token, read from a page as a browser's form would carry it.
    func csrf() async throws -> String {
        Browser.field("csrf", in: String(buffer: try await get("/console/users").body)) ?? ""
    }

    /// The value of the first hidden input named `name` in `html`.
    static func field(_ name: String, in html: String) -> String? {
        guard let start = html.range(of: "name=\"\(name)\" value=\"") else { return nil }
        let rest = html[start.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }

    static func encode(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}
