import Crypto
import Foundation
import SiteCore

/// A sign-in the console began: the `state` it sent the browser off with (the answer must
/// bring it back), the `nonce` the ID token must carry, and PKCE's code verifier (RFC 7636;
/// the provider is sent only its S256 challenge). Held in the browser as one cookie
/// (HttpOnly, SameSite=Lax so the provider's redirect back brings it, ten minutes), so any
/// instance of the site can finish it; nothing of it is a secret once the sign-in is over.
public struct PendingSignIn: Sendable, Equatable {
    public let state: String
    public let nonce: String
    public let verifier: String

    /// Fresh random values, 32 bytes each.
    public static func fresh() -> PendingSignIn {
        PendingSignIn(state: random(), nonce: random(), verifier: random())
    }

    public init(state: String, nonce: String, verifier: String) {
        self.state = state
        self.nonce = nonce
        self.verifier = verifier
    }

    /// The cookie's value: the three, dot-separated (base64url has no dot).
    public var cookie: String { [state, nonce, verifier].joined(separator: ".") }

    /// Reads a cookie's value; nil unless it has the three parts, each 43 base64url characters.
    public init?(cookie: String) {
        let parts = cookie.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, parts.allSatisfy({ $0.count == 43 && $0.allSatisfy(Self.isBase64URL) }) else { return nil }
        self.init(state: parts[0], nonce: parts[1], verifier: parts[2])
    }

    /// PKCE's `code_challenge` (method S256): base64url of the verifier's SHA-256.
    public var challenge: String { Self.base64URL(Array(SHA256.hash(data: Array(verifier.utf8)))) }

    /// The authorization request (Authorization Code flow) at `endpoint`.
    public func authorizationURL(endpoint: String, clientID: String, redirectURL: String, scopes: [String]) -> String? {
        guard var parts = URLComponents(string: endpoint) else { return nil }
        var query = parts.queryItems ?? []
        query += [
            URLQueryItem(name: "response_type", value: "code"), URLQueryItem(name: "client_id", value: clientID),
            URLQueryItem(name: "redirect_uri", value: redirectURL), URLQueryItem(name: "scope", value: scopes.joined(separator: " ")),
            URLQueryItem(name: "state", value: state), URLQueryItem(name: "nonce", value: nonce),
            URLQueryItem(name: "code_challenge", value: challenge), URLQueryItem(name: "code_challenge_method", value: "S256"),
        ]
        parts.queryItems = query
        // URLComponents leaves '+' as is in a query; a provider reads it as a space.
        parts.percentEncodedQuery = parts.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return parts.string
    }

    /// 32 random bytes, base64url: the console's and the API's tokens' own generator.
    static func random() -> String { RandomToken.text() }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func isBase64URL(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || character == "-" || character == "_")
    }
}
