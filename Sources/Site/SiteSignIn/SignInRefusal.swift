/// Why a sign-in through the identity provider was refused: for the audit (`reason`) and a
/// page the person reads. It never carries a token, a code or a secret.
public enum SignInRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// The provider could not be used: not reached, refused by the site's egress rules, or it
    /// answered something that is not OpenID Connect.
    case provider(String)
    /// The browser's answer was not one this console began (state), or came back too late.
    case request(String)
    /// The ID token was refused: its signature, algorithm, key, issuer, audience, times or nonce.
    case token(String)
    /// The person is known to the provider, but no claim of theirs maps to a KioskPad role.
    case noRole(person: String, claim: String)
    /// Their name cannot be an administrator's here (a local account has it, or its form).
    case account(String)

    public var description: String {
        switch self {
        case .provider(let why): return "the identity provider: \(why)"
        case .request(let why): return "the sign-in: \(why)"
        case .token(let why): return "the ID token: \(why)"
        case .noRole(let person, let claim): return "\(person) has no \(claim) claim that server.console.openid.roles maps to a role"
        case .account(let why): return why
        }
    }

    /// The audit's `result` field: short and fixed per kind, the details in `reason`.
    public var result: String {
        switch self {
        case .provider: return "provider unavailable"
        case .request: return "bad sign-in request"
        case .token: return "token refused"
        case .noRole: return "no role mapped"
        case .account: return "account refused"
        }
    }
}
