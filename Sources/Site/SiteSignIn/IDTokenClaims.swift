import Foundation
import JWTKit

/// The claims of an OpenID Connect ID token, read by jwt-kit once its signature is checked:
/// the standard ones the check needs (`iss`, `sub`, `aud`, `azp`, `exp`, `iat`, `nonce`),
/// and every top-level claim that is text or a list of text, for the name and role claims
/// the site's config names (`preferred_username`, `email`, `groups`, `roles` ...).
public struct IDTokenClaims: JWTPayload, Equatable {
    public var issuer: String
    public var subject: String
    public var audience: [String]
    public var authorizedParty: String?
    public var expires: Date
    public var issuedAt: Date
    public var nonce: String?
    /// Other claims of text or lists of text, by name.
    public var texts: [String: [String]]

    public init(
        issuer: String, subject: String, audience: [String], authorizedParty: String? = nil, expires: Date, issuedAt: Date, nonce: String?,
        texts: [String: [String]] = [:]
    ) {
        self.issuer = issuer
        self.subject = subject
        self.audience = audience
        self.authorizedParty = authorizedParty
        self.expires = expires
        self.issuedAt = issuedAt
        self.nonce = nonce
        self.texts = texts
    }

    /// A claim's values: one for text, each for a list of text; empty when absent.
    public func values(of claim: String) -> [String] {
        switch claim {
        case "sub": return [subject]
        case "iss": return [issuer]
        default: return texts[claim] ?? []
        }
    }

    /// The claims are checked by ``IDTokenCheck`` (it knows the time, the client and the nonce);
    /// jwt-kit calls this after the signature, and there is nothing to check without them.
    public func verify(using algorithm: some JWTAlgorithm) async throws {}

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    static let standard: Set<String> = ["iss", "sub", "aud", "azp", "exp", "iat", "nonce", "nbf", "auth_time", "jti"]

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        issuer = try container.decode(String.self, forKey: Key("iss"))
        subject = try container.decode(String.self, forKey: Key("sub"))
        if let one = try? container.decode(String.self, forKey: Key("aud")) {
            audience = [one]
        } else {
            audience = try container.decode([String].self, forKey: Key("aud"))
        }
        authorizedParty = try container.decodeIfPresent(String.self, forKey: Key("azp"))
        expires = Date(timeIntervalSince1970: try container.decode(Double.self, forKey: Key("exp")))
        issuedAt = Date(timeIntervalSince1970: try container.decode(Double.self, forKey: Key("iat")))
        nonce = try container.decodeIfPresent(String.self, forKey: Key("nonce"))
        var texts: [String: [String]] = [:]
        for key in container.allKeys where !Self.standard.contains(key.stringValue) {
            if let text = try? container.decode(String.self, forKey: key) {
                texts[key.stringValue] = [text]
            } else if let list = try? container.decode([String].self, forKey: key) {
                texts[key.stringValue] = list
            }
        }
        self.texts = texts
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(issuer, forKey: Key("iss"))
        try container.encode(subject, forKey: Key("sub"))
        try container.encode(audience, forKey: Key("aud"))
        try container.encodeIfPresent(authorizedParty, forKey: Key("azp"))
        try container.encode(expires.timeIntervalSince1970.rounded(.down), forKey: Key("exp"))
        try container.encode(issuedAt.timeIntervalSince1970.rounded(.down), forKey: Key("iat"))
        try container.encodeIfPresent(nonce, forKey: Key("nonce"))
        for (name, values) in texts where !Self.standard.contains(name) {
            if values.count == 1 { try container.encode(values[0], forKey: Key(name)) } else { try container.encode(values, forKey: Key(name)) }
        }
    }
}
