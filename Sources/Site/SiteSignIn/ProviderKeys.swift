import Foundation
import JWTKit

/// The provider's signing keys (its JWKS at `jwks_uri`), kept between sign-ins. A token
/// signed with a key id the set lacks makes one fetch again (the provider rotated its key),
/// at most once every `refetchAfter` seconds, so a run of unknown ids cannot flood the
/// provider; the set is read again anyway once it is `maxAge` old.
public actor ProviderKeys {
    let fetch: @Sendable () async throws -> [UInt8]
    let refetchAfter: TimeInterval
    let maxAge: TimeInterval
    let now: @Sendable () -> Date
    private var keys: JWKS?
    private var fetched: Date?

    public init(
        refetchAfter: TimeInterval = 2, maxAge: TimeInterval = 3_600, now: @escaping @Sendable () -> Date = { Date() },
        fetch: @escaping @Sendable () async throws -> [UInt8]
    ) {
        self.fetch = fetch
        self.refetchAfter = refetchAfter
        self.maxAge = maxAge
        self.now = now
    }

    /// The key with id `kid` (nil: the set's only key), fetching the set when it is not held,
    /// is old, or lacks that id and may be fetched again.
    public func key(id kid: String?) async throws(SignInRefusal) -> JWK {
        let at = now()
        if keys == nil || fetched.map({ at.timeIntervalSince($0) > maxAge }) ?? true {
            try await load(at)
        } else if find(kid) == nil, fetched.map({ at.timeIntervalSince($0) >= refetchAfter }) ?? true {
            try await load(at)
        }
        guard let key = find(kid) else {
            let held = (keys?.keys ?? []).compactMap { $0.keyIdentifier?.string }.sorted().joined(separator: ", ")
            if let kid { throw .token("its key id \(kid) is not in the provider's JWKS (it has: \(held.isEmpty ? "none" : held))") }
            throw .token("it names no key id, and the provider's JWKS has more than one key (\(held))")
        }
        return key
    }

    private func find(_ kid: String?) -> JWK? {
        guard let keys else { return nil }
        guard let kid else { return keys.keys.count == 1 ? keys.keys[0] : nil }
        return keys.keys.first { $0.keyIdentifier?.string == kid }
    }

    private func load(_ at: Date) async throws(SignInRefusal) {
        let body: [UInt8]
        do { body = try await fetch() } catch let refusal as SignInRefusal { throw refusal } catch {
            throw .provider("its JWKS could not be fetched (\(error))")
        }
        do {
            keys = try JSONDecoder().decode(JWKS.self, from: Data(body))
            fetched = at
        } catch {
            throw .provider("its JWKS is not a JSON Web Key Set (\(OpenIDProviderMetadata.field(error)))")
        }
    }
}
