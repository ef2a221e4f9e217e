import Foundation
import JWTKit
import KioskPadCore

/// Checks an ID token as OpenID Connect Core §3.1.3.7 asks, with jwt-kit doing the parsing
/// and the signature: the algorithm one of the asymmetric ones (never `none`, never an HMAC
/// keyed with something public), the key found by its id in the provider's JWKS (a rotated
/// key followed), then the issuer exactly, this client in the audience (and as `azp` when the
/// audience has others), not expired and not issued in the future (within `clockSkew`), and
/// the nonce the sign-in began with, taken once.
public struct IDTokenCheck: Sendable {
    public let issuer: String
    public let clientID: String
    public let clockSkew: TimeInterval
    /// The longest an ID token is taken after it was issued, whatever its `exp` says.
    public let maxAge: TimeInterval

    /// The algorithms a provider's key may sign with.
    public static let algorithms: Set<String> = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]

    public init(issuer: String, clientID: String, clockSkew: TimeInterval = 60, maxAge: TimeInterval = 600) {
        self.issuer = issuer
        self.clientID = clientID
        self.clockSkew = clockSkew
        self.maxAge = maxAge
    }

    /// The token's claims once every check passed, or why not.
    public func verify(_ token: String, keys: ProviderKeys, nonce expected: String, ledger: NonceLedger, now: Date) async throws(SignInRefusal)
        -> IDTokenClaims
    {
        let header: JWTHeader
        do {
            header = try DefaultJWTParser().parse(Array(token.utf8), as: IDTokenClaims.self).header
        } catch {
            throw .token("it is not a JWT with the claims an ID token has (\(error))")
        }
        guard let algorithm = header.alg, Self.algorithms.contains(algorithm) else {
            throw .token("it is signed with \(header.alg ?? "no algorithm"); allowed: \(Self.algorithms.sorted().joined(separator: ", "))")
        }
        let jwk = try await keys.key(id: header.kid)
        if let keyAlgorithm = jwk.algorithm?.rawValue, keyAlgorithm != algorithm {
            throw .token("it says \(algorithm), but its key \(header.kid ?? "") is for \(keyAlgorithm)")
        }
        let claims: IDTokenClaims
        do {
            let collection = JWTKeyCollection()
            try await collection.add(jwk: jwk, isDefault: true)
            claims = try await collection.verify(Array(token.utf8), as: IDTokenClaims.self)
        } catch {
            throw .token("its signature does not verify with the provider's key \(header.kid ?? "")")
        }
        guard claims.issuer == issuer else { throw .token("it was issued by \(claims.issuer), not \(issuer)") }
        guard claims.audience.contains(clientID) else { throw .token("it is for \(claims.audience.joined(separator: ", ")), not this console (\(clientID))") }
        if claims.audience.count > 1 || claims.authorizedParty != nil, claims.authorizedParty != clientID {
            throw .token("it was issued to \(claims.authorizedParty ?? "no authorized party") (azp), not this console (\(clientID))")
        }
        guard claims.expires.addingTimeInterval(clockSkew) > now else { throw .token("it expired at \(claims.expires)") }
        guard claims.issuedAt.addingTimeInterval(-clockSkew) <= now else { throw .token("it was issued in the future (\(claims.issuedAt))") }
        guard now.timeIntervalSince(claims.issuedAt) <= maxAge + clockSkew else { throw .token("it was issued at \(claims.issuedAt), too long ago") }
        guard let nonce = claims.nonce, ConstantTime.equal(Array(nonce.utf8), Array(expected.utf8)) else {
            throw .token("its nonce is not the one this sign-in began with")
        }
        // Remembered for as long as the token could still be taken.
        let takenUntil = min(claims.expires, claims.issuedAt.addingTimeInterval(maxAge)).addingTimeInterval(clockSkew)
        guard await ledger.claim(nonce, until: takenUntil, now: now) else {
            throw .token("its nonce was used before (a token replayed)")
        }
        return claims
    }
}
