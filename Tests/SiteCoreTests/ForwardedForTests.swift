import KioskPadEndpoints
import SiteCore
import Testing

/// Which client a request speaks for behind trusted proxies, as the doors' listener and the
/// console both count it: never a header from an untrusted peer, never a word that is no address.
@Suite("X-Forwarded-For behind trusted proxies")
struct ForwardedForTests {
    let proxy = ForwardedFor.trusted(["127.0.0.1", "10.0.0.2"])

    @Test func anUntrustedPeerIsItselfWhateverItSends() {
        #expect(ForwardedFor.client(peer: "192.0.2.9", forwarded: ["198.51.100.1"], trusted: proxy) == "192.0.2.9")
        #expect(ForwardedFor.client(peer: "192.0.2.9", forwarded: [], trusted: []) == "192.0.2.9")
    }

    @Test func behindTheProxyTheRightMostUntrustedAddressCounts() {
        #expect(ForwardedFor.client(peer: "127.0.0.1", forwarded: ["192.0.2.7"], trusted: proxy) == "192.0.2.7")
        // A client's own header first, then what the proxies added: the proxies' word counts.
        #expect(ForwardedFor.client(peer: "127.0.0.1", forwarded: ["203.0.113.5, 192.0.2.7, 10.0.0.2"], trusted: proxy) == "192.0.2.7")
        #expect(ForwardedFor.client(peer: "127.0.0.1", forwarded: ["203.0.113.5", "192.0.2.7"], trusted: proxy) == "192.0.2.7")
        #expect(ForwardedFor.client(peer: "127.0.0.1", forwarded: [" 2001:db8::7 "], trusted: proxy) == "2001:db8::7")
    }

    @Test func anEntryThatIsNoAddressCountsAsThePeerThatAddedIt() {
        #expect(ForwardedFor.client(peer: "127.0.0.1", forwarded: ["<script>alert(1)</script>"], trusted: proxy) == "127.0.0.1")
        #expect(ForwardedFor.client(peer: "127.0.0.1", forwarded: ["192.0.2.7, unknown"], trusted: proxy) == "127.0.0.1")
        #expect(ForwardedFor.client(peer: "127.0.0.1", forwarded: ["bogus, 10.0.0.2"], trusted: proxy) == "10.0.0.2")
        #expect(ForwardedFor.client(peer: "127.0.0.1", forwarded: [], trusted: proxy) == "127.0.0.1")
    }
}
