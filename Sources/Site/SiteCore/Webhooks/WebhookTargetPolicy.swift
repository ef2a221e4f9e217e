import Foundation
import KioskPadEndpoints
import KioskPadThreads

/// Where the site may send webhooks (`server.webhooks` in its config file, never the API): a
/// receiver must be on a public address, unless the operator listed it in `allow_targets`
/// (an address, a CIDR range or a host name: then any address that name resolves to); plain
/// `http://` only to loopback or to a host listed in `allow_http`. Every address a name
/// resolves to is checked, at subscription and again before each delivery, and the delivery
/// connects to an address that was checked (docs/api.md, "Where webhooks may go").
public struct WebhookTargetPolicy: Sendable, Equatable {
    /// One entry of `allow_targets` or `allow_http`.
    public typealias Entry = AllowedTarget

    /// Receivers inside the site's network that may be sent to.
    public var allowTargets: [Entry]
    /// Hosts plain `http://` may go to besides loopback.
    public var allowHTTP: [Entry]

    /// The config section the lists are in and what is sent, as a refusal names them
    /// (`server.webhooks`, "webhooks"; the identity provider's: `server.console.openid`).
    public var section: String
    public var sent: String

    public init(allowTargets: [Entry] = [], allowHTTP: [Entry] = [], section: String = "server.webhooks", sent: String = "webhooks") {
        self.allowTargets = allowTargets
        self.allowHTTP = allowHTTP
        self.section = section
        self.sent = sent
    }

    /// What a checked URL connects to.
    public struct Target: Sendable, Equatable {
        public let url: String
        public let host: String
        /// Every address the host had when checked, each allowed; the delivery connects to the first.
        public let addresses: [IPAddress]
    }

    /// Why a URL may not be sent to; ``description`` names the address and what would allow it.
    public struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// The URL's form alone (scheme, host, no user or password), or why it is refused:
    /// checked before any lookup.
    public func formProblem(_ url: String) -> String? {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(), let host = parts.host, !host.isEmpty,
            parts.user == nil, parts.password == nil
        else {
            return "\(Self.shown(url)) is not an absolute https:// URL (without a user or password in it)"
        }
        guard scheme == "https" || scheme == "http" else { return "scheme \(scheme) is not supported; use https://" }
        return nil
    }

    /// Checks `url` with the addresses `resolve` gives its host (an IP literal is its own).
    public func check(_ url: String, resolve: @Sendable (String) async throws -> [IPAddress]) async -> Result<Target, Refusal> {
        if let problem = formProblem(url) { return .failure(Refusal(description: problem)) }
        let parts = URLComponents(string: url)!
        let scheme = parts.scheme!.lowercased()
        let rawHost = parts.host!
        let host = rawHost.hasPrefix("[") ? String(rawHost.dropFirst().dropLast()) : rawHost
        let addresses: [IPAddress]
        if let literal = IPAddress(literal: host) {
            addresses = [literal]
        } else {
            do {
                addresses = try await resolve(host)
            } catch {
                return .failure(Refusal(description: "\(host) could not be looked up: \(error)"))
            }
            guard !addresses.isEmpty else { return .failure(Refusal(description: "\(host) does not resolve to any address")) }
        }
        for address in addresses where address.scope != .public && !allowTargets.contains(where: { $0.matches(host: host, address: address) }) {
            let through = IPAddress(literal: host) == nil ? "\(host) resolves to \(address), " : "\(address) is "
            return .failure(
                Refusal(
                    description:
                        "\(through)\(Self.article(address.scope)) \(address.scope.rawValue) address: the site sends \(sent) inside its own network only to a host listed in \(section).allow_targets of its config file"
                ))
        }
        if scheme == "http", !addresses.allSatisfy(\.isLoopback),
            !addresses.allSatisfy({ address in allowHTTP.contains { $0.matches(host: host, address: address) } })
        {
            return .failure(
                Refusal(
                    description:
                        "plain http:// to \(host) would send \(sent) unencrypted; use https://, or list the host in \(section).allow_http of the site's config file"
                ))
        }
        return .success(Target(url: url, host: host, addresses: addresses))
    }

    /// A URL as lists, the audit and messages show it: scheme, host and port, the rest
    /// redacted (a Slack, Teams or Discord hook carries its token in the path or query).
    public static func shown(_ url: String) -> String {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme, let host = parts.host else { return "(not a URL)" }
        let port = parts.port.map { ":\($0)" } ?? ""
        let rest = parts.path.isEmpty || parts.path == "/" ? (parts.query == nil ? "/" : "/?…") : "/…"
        return "\(scheme)://\(host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host)\(port)\(rest)"
    }

    private static func article(_ scope: IPAddressScope) -> String {
        switch scope {
        case .unspecified: return "an"
        default: return "a"
        }
    }
}

/// Name lookups for webhook targets: `getaddrinfo` on threads of their own (`kp-dns`), never
/// on Swift's cooperative threads; at most 64 lookups wait.
public enum WebhookResolver {
    static let threads = WorkThreads(name: "kp-dns", threads: 2, queueLimits: [64])

    /// The system resolver's answer for `host`.
    @Sendable public static func system(_ host: String) async throws -> [IPAddress] {
        try await threads.run { IPAddress.resolve(host) }
    }
}
