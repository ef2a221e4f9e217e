import KioskPadEndpoints

/// The client a request speaks for, behind the site's trusted reverse proxies: the peer
/// itself unless it is trusted; then each `X-Forwarded-For` entry from the right, the first
/// that is not trusted. An entry that is no IP address ends the walk there: the peer that
/// added it is the one counted, so a client's own header never names somebody else, and
/// nothing but an address reaches the per-address limits, the throttles or the audit.
/// The doors' listener (`server.trusted_proxies`) and the console's
/// (`server.console.trusted_proxy`) both read it here.
public enum ForwardedFor {
    public static func client(peer: String, forwarded: [String], trusted: Set<IPAddress>) -> String {
        guard let address = IPAddress(literal: peer), trusted.contains(address) else { return peer }
        var current = peer
        for entry in forwarded.flatMap({ $0.split(separator: ",") }).reversed() {
            let text = entry.trimmingCharacters(in: .whitespaces)
            guard let hop = IPAddress(literal: text) else { return current }
            current = hop.description
            if !trusted.contains(hop) { return current }
        }
        return current
    }

    /// The addresses of `literals` (IP literals; anything else is left out, as the config's
    /// reader refused it already).
    public static func trusted(_ literals: [String]) -> Set<IPAddress> {
        Set(literals.compactMap { IPAddress(literal: $0) })
    }
}
