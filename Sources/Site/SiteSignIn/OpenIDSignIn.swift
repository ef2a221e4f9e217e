import Foundation
import SiteCore

/// What the console needs to know of its identity provider (`server.console.openid`).
public struct OpenIDSignInOptions: Sendable {
    public var issuer: String
    public var clientID: String
    /// The client secret (client_secret_basic); nil for a public client (PKCE alone).
    public var clientSecret: String?
    /// This console's callback, as registered at the provider (`.../console/login/callback`).
    public var redirectURL: String
    public var scopes = ["openid", "profile", "email"]
    /// The claim whose value is the administrator's name here.
    public var nameClaim = "preferred_username"
    /// The claim whose values ``roles`` maps.
    public var rolesClaim = "groups"
    public var roles: [RoleGrant] = []
    /// A session begun through the provider ends this long after sign-in (then the provider
    /// is asked again: a person removed or re-roled there is so here by then).
    public var sessionLifetime: TimeInterval = 900
    public var clockSkew: TimeInterval = 60
    /// The login page's button.
    public var label = "Sign in with your organisation"

    public init(issuer: String, clientID: String, clientSecret: String? = nil, redirectURL: String) {
        self.issuer = issuer
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.redirectURL = redirectURL
    }
}

/// A person the provider signed in, as the site will know them.
public struct SignedInPerson: Sendable, Equatable {
    /// Their administrator name here (the name claim).
    public let name: String
    /// The provider's `sub`, for the audit.
    public let subject: String
    public let grant: RoleGrant
}

/// Sign-in through the organisation's OpenID Connect provider: the Authorization Code flow
/// with PKCE (S256), state and nonce. ``begin()`` finds the provider by discovery and gives
/// the address to send the browser to; ``finish(code:state:pending:now:)`` trades the code
/// at the token endpoint (with the code verifier and, for a confidential client, its secret),
/// checks the ID token (``IDTokenCheck``) and maps its role claim (``RoleGrant``). The
/// discovery document is kept for an hour; the keys as ``ProviderKeys`` says.
public final class OpenIDSignIn: Sendable {
    public let options: OpenIDSignInOptions
    let transport: any OpenIDTransport
    let discovery: DiscoveryCache
    let keys: ProviderKeys
    let ledger = NonceLedger()
    let check: IDTokenCheck

    public init(options: OpenIDSignInOptions, transport: any OpenIDTransport, now: @escaping @Sendable () -> Date = { Date() }) {
        self.options = options
        self.transport = transport
        let discovery = DiscoveryCache(issuer: options.issuer, transport: transport, now: now)
        self.discovery = discovery
        keys = ProviderKeys(now: now) {
            let metadata = try await discovery.metadata()
            return try await Self.document(transport, metadata.jwksURI, what: "JWKS")
        }
        check = IDTokenCheck(issuer: options.issuer, clientID: options.clientID, clockSkew: options.clockSkew)
    }

    /// Where to send the browser, and what to keep in its cookie until it comes back.
    public func begin() async throws(SignInRefusal) -> (url: String, pending: PendingSignIn) {
        let metadata = try await discovery.metadata()
        let pending = PendingSignIn.fresh()
        guard
            let url = pending.authorizationURL(
                endpoint: metadata.authorizationEndpoint, clientID: options.clientID, redirectURL: options.redirectURL, scopes: options.scopes)
        else { throw .provider("its authorization_endpoint \(metadata.authorizationEndpoint) is not a URL") }
        return (url, pending)
    }

    /// The person the browser's answer (`code`, `state`) signs in, checked against `pending`.
    public func finish(code: String, state: String, pending: PendingSignIn, now: Date) async throws(SignInRefusal) -> SignedInPerson {
        guard state.utf8.count == pending.state.utf8.count, zip(state.utf8, pending.state.utf8).reduce(0, { $0 | ($1.0 ^ $1.1) }) == 0 else {
            throw .request("its state is not the one this browser's sign-in began with (another tab, or a forged answer)")
        }
        guard !code.isEmpty, code.utf8.count <= 4_096 else { throw .request("the provider's answer has no usable code") }
        let metadata = try await discovery.metadata()
        let idToken = try await exchange(code: code, pending: pending, at: metadata.tokenEndpoint)
        let claims = try await check.verify(idToken, keys: keys, nonce: pending.nonce, ledger: ledger, now: now)
        guard let name = claims.values(of: options.nameClaim).first else {
            throw .account("the ID token has no \(options.nameClaim) claim (server.console.openid.name_claim); ask for its scope, or name another claim")
        }
        guard ProviderAccountName.isValid(name) else {
            throw .account("\(options.nameClaim) '\(name.prefix(64))' cannot be an administrator's name (1-128 of letters, digits, . _ - @ +)")
        }
        guard let grant = RoleGrant.first(in: options.roles, for: claims.values(of: options.rolesClaim)) else {
            throw .noRole(person: name, claim: options.rolesClaim)
        }
        return SignedInPerson(name: name, subject: claims.subject, grant: grant)
    }

    /// The provider's sign-out (RP-initiated logout), coming back to `after`; nil when it has none.
    public func signOutURL(after: String) async -> String? {
        guard let endpoint = try? await discovery.metadata().endSessionEndpoint, var parts = URLComponents(string: endpoint) else { return nil }
        parts.queryItems =
            (parts.queryItems ?? []) + [
                URLQueryItem(name: "client_id", value: options.clientID), URLQueryItem(name: "post_logout_redirect_uri", value: after),
            ]
        return parts.string
    }

    /// The ID token for `code`, from the token endpoint.
    func exchange(code: String, pending: PendingSignIn, at endpoint: String) async throws(SignInRefusal) -> String {
        let fields = [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", options.redirectURL), ("code_verifier", pending.verifier),
            ("client_id", options.clientID),
        ]
        var authorization: String?
        if let secret = options.clientSecret {
            // client_secret_basic (RFC 6749 §2.3.1): each part form-encoded, then base64.
            let pair = OpenIDHTTPTransport.escaped(options.clientID) + ":" + OpenIDHTTPTransport.escaped(secret)
            authorization = "Basic " + Data(pair.utf8).base64EncodedString()
        }
        let answer: (status: Int, body: [UInt8])
        do { answer = try await transport.postForm(endpoint, fields: fields, authorization: authorization) } catch let refusal as SignInRefusal {
            throw refusal
        } catch {
            throw .provider("its token endpoint could not be reached (\(error))")
        }
        let json = (try? JSONSerialization.jsonObject(with: Data(answer.body))) as? [String: Any]
        guard answer.status == 200 else {
            let said = (json?["error"] as? String).map { " \($0)" } ?? ""
            throw .provider("its token endpoint answered \(answer.status)\(said)")
        }
        guard let token = json?["id_token"] as? String else { throw .provider("its token endpoint's answer has no id_token") }
        return token
    }

    /// A JSON document's body at `url`, or why not.
    static func document(_ transport: any OpenIDTransport, _ url: String, what: String) async throws -> [UInt8] {
        let answer: (status: Int, body: [UInt8])
        do { answer = try await transport.get(url) } catch let refusal as SignInRefusal { throw refusal } catch {
            throw SignInRefusal.provider("its \(what) at \(WebhookTargetPolicy.shown(url)) could not be fetched (\(error))")
        }
        guard answer.status == 200 else { throw SignInRefusal.provider("its \(what) at \(WebhookTargetPolicy.shown(url)) answered \(answer.status)") }
        return answer.body
    }
}

/// The provider's discovery document, fetched when first needed and again after an hour
/// (or after a fetch failed).
actor DiscoveryCache {
    let issuer: String
    let transport: any OpenIDTransport
    let now: @Sendable () -> Date
    private var held: (OpenIDProviderMetadata, Date)?

    init(issuer: String, transport: any OpenIDTransport, now: @escaping @Sendable () -> Date) {
        self.issuer = issuer
        self.transport = transport
        self.now = now
    }

    func metadata() async throws(SignInRefusal) -> OpenIDProviderMetadata {
        if let (metadata, at) = held, now().timeIntervalSince(at) < 3_600 { return metadata }
        let body: [UInt8]
        do { body = try await OpenIDSignIn.document(transport, OpenIDProviderMetadata.discoveryURL(for: issuer), what: "discovery document") } catch let refusal
            as SignInRefusal
        {
            throw refusal
        } catch {
            throw .provider("\(error)")
        }
        let metadata = try OpenIDProviderMetadata.read(body, issuer: issuer)
        held = (metadata, now())
        return metadata
    }
}
