import Foundation
import JWTKit
import SiteSignIn
import Synchronization

/// A provider's signing side for crafted tokens: P-256 keys with ids, its JWKS, and ID
/// tokens signed by jwt-kit (or deliberately not: `alg: none`, an HMAC, another key).
final class CraftedTokens: Sendable {
    static let issuer = "https://login.example.test/realms/site"
    static let client = "kioskpad-console"

    let keys: Mutex<[(String, ES256PrivateKey)]>
    let fetches = Mutex(0)

    init(kids: [String] = ["k1"]) {
        keys = Mutex(kids.map { ($0, ES256PrivateKey()) })
    }

    /// The JWKS as the provider serves it now (public keys only).
    func jwks() -> [UInt8] {
        let entries = keys.withLock { keys in
            keys.map { kid, key -> String in
                let (x, y) = key.publicKey.parameters!
                return #"{"kty":"EC","crv":"P-256","use":"sig","alg":"ES256","kid":"\#(kid)","x":"\#(x)","y":"\#(y)"}"#
            }
        }
        return Array(#"{"keys":[\#(entries.joined(separator: ","))]}"#.utf8)
    }

    /// A new key `kid` replaces the old ones (a rotation at the provider).
    func rotate(to kid: String) {
        keys.withLock { $0 = [(kid, ES256PrivateKey())] }
    }

    func providerKeys(now: @escaping @Sendable () -> Date = { Date() }, refetchAfter: TimeInterval = 2) -> ProviderKeys {
        ProviderKeys(refetchAfter: refetchAfter, now: now) { [self] in
            fetches.withLock { $0 += 1 }
            return jwks()
        }
    }

    static func claims(
        nonce: String? = "n-1", now: Date = Date(), issuer: String = issuer, audience: [String] = [client], lifetime: TimeInterval = 300,
        texts: [String: [String]] = ["preferred_username": ["ann"], "groups": ["reception"]]
    ) -> IDTokenClaims {
        IDTokenClaims(
            issuer: issuer, subject: "sub-ann", audience: audience, expires: now.addingTimeInterval(lifetime), issuedAt: now, nonce: nonce,
            texts: texts)
    }

    /// `claims` signed with key `kid` (the first when nil).
    func sign(_ claims: IDTokenClaims, kid: String? = nil) async throws -> String {
        let (id, key) = keys.withLock { keys in kid.flatMap { wanted in keys.first { $0.0 == wanted } } ?? keys[0] }
        let collection = JWTKeyCollection()
        await collection.add(ecdsa: key, kid: JWKIdentifier(string: id))
        return try await collection.sign(claims, kid: JWKIdentifier(string: id))
    }

    /// `claims` signed with a key the provider never published, under its id `kid`.
    static func forged(_ claims: IDTokenClaims, kid: String) async throws -> String {
        let collection = JWTKeyCollection()
        await collection.add(ecdsa: ES256PrivateKey(), kid: JWKIdentifier(string: kid))
        return try await collection.sign(claims, kid: JWKIdentifier(string: kid))
    }

    /// `claims` with `alg: none` and no signature.
    static func unsigned(_ claims: IDTokenClaims, kid: String) async throws -> String {
        let collection = JWTKeyCollection()
        await collection.addUnsecuredNone(kid: JWKIdentifier(string: kid))
        return try await collection.sign(claims, kid: JWKIdentifier(string: kid))
    }

    /// `claims` signed HS256 with the published JWKS as the secret (the old key-confusion attack).
    func hmacWithPublicKey(_ claims: IDTokenClaims, kid: String) async throws -> String {
        let collection = JWTKeyCollection()
        await collection.add(hmac: HMACKey(from: jwks()), digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
        return try await collection.sign(claims, kid: JWKIdentifier(string: kid))
    }
}
