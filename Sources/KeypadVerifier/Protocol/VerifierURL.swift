import Foundation

/// The rule for verifier URLs: http or https only, and plain `http://` only to a loopback
/// host unless explicitly allowed (PINs must not cross a network unencrypted by accident).
public enum VerifierURL {
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

    public static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        return bare == "localhost" || bare == "::1" || bare.hasPrefix("127.")
    }
}
