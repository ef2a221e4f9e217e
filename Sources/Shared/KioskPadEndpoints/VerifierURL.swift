import Foundation

/// The rule for verifier URLs: http or https only, and plain `http://` only to a loopback
/// host unless explicitly allowed (PINs must not cross a network unencrypted by accident).
public enum VerifierURL {
    /// `url`'s scheme, host and port with `path`, no query or fragment (a site's other
    /// endpoints beside `/verify`); `url` itself when it cannot be read.
    public static func replacingPath(_ url: String, with path: String) -> String {
        guard var parts = URLComponents(string: url) else { return url }
        parts.path = path
        parts.query = nil
        parts.fragment = nil
        return parts.string ?? url
    }

    /// Why a URL is refused, or nil when it is fine.
    public static func problem(_ text: String, allowInsecureHTTP: Bool) -> String? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            return "'\(text)' is not an absolute http(s) URL"
        }
        guard scheme == "https" || scheme == "http" else {
            return "scheme \(scheme) is not supported; use https:// (or http:// on loopback)"
        }
        if scheme == "http" && !allowInsecureHTTP && !isLoopback(host) {
            return "plain http:// to \(host) would send PINs unencrypted; use https:// or set verifier.allow_insecure_http: true"
        }
        return nil
    }

    /// Loopback means an IP literal in 127.0.0.0/8, the IPv6 literal ::1, or exactly
    /// `localhost` when every address it resolves to is one of those. Any other name is
    /// remote, whatever it looks like (`127.evil.example` is a DNS name).
    public static func isLoopback(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if let address = IPAddress(literal: bare) { return address.isLoopback }
        guard bare.lowercased() == "localhost" else { return false }
        let resolved = IPAddress.resolve(bare)
        return !resolved.isEmpty && resolved.allSatisfy(\.isLoopback)
    }
}
