import Foundation
import KioskPadEndpoints
import SiteCore
import Synchronization
import Testing

/// Where webhooks may go (issue 78): public addresses only unless the site's config file lists
/// a receiver; every address a name resolves to checked; plain http only to loopback or a
/// listed host; URLs shown redacted.
@Suite("Webhook targets")
struct WebhookTargetPolicyTests {
    static func resolving(_ answers: [String: [String]]) -> @Sendable (String) async throws -> [IPAddress] {
        { host in (answers[host] ?? []).compactMap(IPAddress.init(literal:)) }
    }

    @Test(arguments: [
        ("127.0.0.1", IPAddressScope.loopback), ("::1", .loopback), ("169.254.169.254", .linkLocal), ("fe80::1", .linkLocal),
        ("10.0.0.5", .private), ("172.16.0.1", .private), ("172.31.255.255", .private), ("192.168.1.1", .private), ("fd00::1", .private),
        ("100.64.0.1", .sharedAddressSpace), ("224.0.0.251", .multicast), ("ff02::1", .multicast), ("0.0.0.0", .unspecified), ("::", .unspecified),
        ("240.0.0.1", .reserved), ("255.255.255.255", .reserved), ("192.0.2.10", .reserved), ("2001:db8::1", .reserved),
        ("::ffff:127.0.0.1", .loopback), ("::ffff:10.1.2.3", .private), ("64:ff9b::a9fe:a9fe", .linkLocal), ("2002:c0a8:0101::1", .private),
        ("93.184.215.14", .public), ("172.32.0.1", .public), ("100.128.0.1", .public), ("2606:4700::1111", .public),
    ])
    func addressesAreSortedIntoTheirRanges(_ text: String, _ scope: IPAddressScope) throws {
        #expect(try #require(IPAddress(literal: text)).scope == scope, "\(text)")
    }

    @Test func rangesContainWhatTheirPrefixCovers() throws {
        let range = try #require(IPAddressRange("10.30.0.0/16"))
        #expect(range.contains(IPAddress(literal: "10.30.255.1")!))
        #expect(!range.contains(IPAddress(literal: "10.31.0.1")!))
        #expect(!range.contains(IPAddress(literal: "::ffff:10.30.0.1")!), "another family")
        #expect(try #require(IPAddressRange("fd00::/8")).contains(IPAddress(literal: "fd12::1")!))
        #expect(IPAddressRange("10.0.0.0/33") == nil && IPAddressRange("10.0.0.0/") == nil && IPAddressRange("ten") == nil)
    }

    /// The issue's tries, through the policy as it stands by default: each refused, naming the
    /// address, its range and the config key that would allow it.
    @Test(arguments: [
        "http://127.0.0.1:8080/", "https://169.254.169.254/", "https://10.0.0.5:22/", "https://192.168.1.1/", "https://[::1]/", "https://[fd00::5]/",
    ])
    func internalAddressesAreRefusedByDefault(_ url: String) async throws {
        let result = await WebhookTargetPolicy().check(url, resolve: Self.resolving([:]))
        guard case .failure(let refusal) = result else {
            Issue.record("\(url) was allowed")
            return
        }
        #expect(refusal.description.contains("server.webhooks.allow_targets"), "\(refusal)")
    }

    @Test func everyAddressANameResolvesToIsChecked() async throws {
        let resolve = Self.resolving(["hooks.example": ["93.184.215.14", "10.0.0.5"], "public.example": ["93.184.215.14"]])
        let policy = WebhookTargetPolicy()
        guard case .failure(let refusal) = await policy.check("https://hooks.example/in", resolve: resolve) else {
            Issue.record("a name with one private address was allowed")
            return
        }
        #expect(refusal.description.hasPrefix("hooks.example resolves to 10.0.0.5, a private address"), "\(refusal)")
        let allowed = try await policy.check("https://public.example/in", resolve: resolve).get()
        #expect(allowed.addresses == [IPAddress(literal: "93.184.215.14")!])
        guard case .failure(let none) = await policy.check("https://nowhere.example/", resolve: resolve) else {
            Issue.record("no address, allowed")
            return
        }
        #expect(none.description.contains("does not resolve"))
    }

    @Test func theConfigFileAllowsReceiversInsideTheNetwork() async throws {
        let resolve = Self.resolving(["hooks.corp.example": ["10.20.0.15"], "other.corp.example": ["10.20.0.16"]])
        let policy = WebhookTargetPolicy(
            allowTargets: [AllowedTarget("10.30.0.0/16")!, AllowedTarget("hooks.corp.example")!, AllowedTarget("127.0.0.1")!],
            allowHTTP: [AllowedTarget("hooks.corp.example")!])
        #expect(try await policy.check("https://10.30.4.4/", resolve: resolve).get().host == "10.30.4.4")
        #expect(try await policy.check("http://hooks.corp.example/in", resolve: resolve).get().addresses.map(\.description) == ["10.20.0.15"])
        #expect(try await policy.check("http://127.0.0.1:9000/", resolve: resolve).get().host == "127.0.0.1", "plain http to loopback")
        if case .success = await policy.check("https://other.corp.example/", resolve: resolve) { Issue.record("an unlisted name inside the network") }
        if case .success = await policy.check("https://127.0.0.2/", resolve: resolve) { Issue.record("an unlisted loopback address") }
        guard case .failure(let http) = await policy.check("http://10.30.4.4/", resolve: resolve) else {
            Issue.record("plain http allowed")
            return
        }
        #expect(http.description.contains("server.webhooks.allow_http"))
    }

    @Test func aPublicReceiverTakesHTTPSOnly() async throws {
        let resolve = Self.resolving(["hooks.example": ["93.184.215.14"]])
        #expect(try await WebhookTargetPolicy().check("https://hooks.example/in", resolve: resolve).get().host == "hooks.example")
        if case .success = await WebhookTargetPolicy().check("http://hooks.example/in", resolve: resolve) { Issue.record("plain http off loopback") }
        for bad in ["ftp://hooks.example/", "https://user:pw@hooks.example/", "not a url", ""] {
            if case .success = await WebhookTargetPolicy().check(bad, resolve: resolve) { Issue.record("\(bad) allowed") }
        }
    }

    @Test func aURLIsShownWithoutItsPathOrQuery() {
        #expect(WebhookTargetPolicy.shown("https://hooks.slack.com/services/T000/B000/XXXXSECRET") == "https://hooks.slack.com/…")
        #expect(WebhookTargetPolicy.shown("https://hooks.example:8443/?token=abc") == "https://hooks.example:8443/?…")
        #expect(WebhookTargetPolicy.shown("https://hooks.example/") == "https://hooks.example/")
        #expect(!WebhookTargetPolicy.shown("https://discord.com/api/webhooks/123/TOKEN").contains("TOKEN"))
    }

    @Test func allowListEntriesAreAddressesRangesOrNames() {
        #expect(AllowedTarget("10.0.0.0/8")?.description == "10.0.0.0/8")
        #expect(AllowedTarget("10.0.0.5")?.description == "10.0.0.5")
        #expect(AllowedTarget("Hooks.Corp.Example")?.description == "hooks.corp.example")
        for bad in ["", "10.0.0.0/40", "http://x", "a b", "-x.example", "1.2.3"] { #expect(AllowedTarget(bad) == nil, "\(bad)") }
    }
}
