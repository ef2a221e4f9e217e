import Foundation

/// What the provider says of itself at `ISSUER/.well-known/openid-configuration` (OpenID
/// Connect Discovery 1.0): where to send the browser, where to trade the code, where its
/// keys are, and where to sign out. Only the fields the console uses are read.
public struct OpenIDProviderMetadata: Codable, Sendable, Equatable {
    public let issuer: String
    public let authorizationEndpoint: String
    public let tokenEndpoint: String
    public let jwksURI: String
    /// RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0), when the provider has it.
    public let endSessionEndpoint: String?
    public let codeChallengeMethodsSupported: [String]?

    enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case jwksURI = "jwks_uri"
        case endSessionEndpoint = "end_session_endpoint"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported"
    }

    public init(
        issuer: String, authorizationEndpoint: String, tokenEndpoint: String, jwksURI: String, endSessionEndpoint: String? = nil,
        codeChallengeMethodsSupported: [String]? = ["S256"]
    ) {
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.jwksURI = jwksURI
        self.endSessionEndpoint = endSessionEndpoint
        self.codeChallengeMethodsSupported = codeChallengeMethodsSupported
    }

    /// The discovery document's address for `issuer`.
    public static func discoveryURL(for issuer: String) -> String {
        (issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer) + "/.well-known/openid-configuration"
    }

    /// Reads a discovery document, refused unless it names exactly `issuer` (Discovery §4.3:
    /// a document served for one issuer cannot speak for another) and offers PKCE's S256
    /// when it lists its methods at all.
    public static func read(_ body: [UInt8], issuer: String) throws(SignInRefusal) -> OpenIDProviderMetadata {
        let metadata: OpenIDProviderMetadata
        do {
            metadata = try JSONDecoder().decode(OpenIDProviderMetadata.self, from: Data(body))
        } catch {
            throw .provider("its discovery document is not the JSON OpenID Connect Discovery describes (\(Self.field(error)))")
        }
        guard metadata.issuer == issuer else {
            throw .provider("its discovery document names the issuer \(metadata.issuer), not \(issuer) as server.console.openid.issuer says")
        }
        if let methods = metadata.codeChallengeMethodsSupported, !methods.contains("S256") {
            throw .provider("it does not offer PKCE with S256 (code_challenge_methods_supported: \(methods.joined(separator: ", ")))")
        }
        return metadata
    }

    /// The key a decoding error is about, as a user would look for it.
    static func field(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, _): return "\(key.stringValue) is missing"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return context.codingPath.map(\.stringValue).joined(separator: ".") + " is not what was expected"
        default: return "not JSON"
        }
    }
}
