import Foundation
import JWTKit
import SiteSignIn
import Synchronization
import Testing

/// ID tokens crafted to be wrong in one way each (issue 81): every one refused with a reason
/// that names what was wrong, and the right one taken once.
@Suite("ID token checks")
struct IDTokenCheckTests {
    let provider = CraftedTokens()
    let check = IDTokenCheck(issuer: CraftedTokens.issuer, clientID: CraftedTokens.client, clockSkew: 60)

    func refusal(_ token: String, keys: ProviderKeys? = nil, nonce: String = "n-1", now: Date = Date()) async -> SignInRefusal? {
        do {
            _ = try await check.verify(token, keys: keys ?? provider.providerKeys(), nonce: nonce, ledger: NonceLedger(), now: now)
            return nil
        } catch {
            return error
        }
    }

    @Test func aGoodTokenIsTakenWithItsClaims() async throws {
        let token = try await provider.sign(CraftedTokens.claims())
        let claims = try await check.verify(token, keys: provider.providerKeys(), nonce: "n-1", ledger: NonceLedger(), now: Date())
        #expect(claims.subject == "sub-ann" && claims.values(of: "preferred_username") == ["ann"] && claims.values(of: "groups") == ["reception"])
    }

    @Test func aSignatureByAnotherKeyIsRefused() async throws {
        let token = try await CraftedTokens.forged(CraftedTokens.claims(), kid: "k1")
        #expect(await refusal(token) == .token("its signature does not verify with the provider's key k1"))
    }

    @Test func algNoneIsRefusedBeforeAnyKeyIsLookedAt() async throws {
        let token = try await CraftedTokens.unsigned(CraftedTokens.claims(), kid: "k1")
        let said = try #require(await refusal(token))
        #expect(said.description.contains("signed with none"), "\(said)")
        #expect(provider.fetches.withLock { $0 } == 0)
    }

    @Test func anHMACKeyedWithThePublicKeyIsRefused() async throws {
        let token = try await provider.hmacWithPublicKey(CraftedTokens.claims(), kid: "k1")
        let said = try #require(await refusal(token))
        #expect(said.description.contains("signed with HS256"), "\(said)")
    }

    @Test func anotherIssuerIsRefused() async throws {
        let token = try await provider.sign(CraftedTokens.claims(issuer: "https://evil.example.test/"))
        #expect(await refusal(token) == .token("it was issued by https://evil.example.test/, not \(CraftedTokens.issuer)"))
    }

    @Test func anotherAudienceIsRefused() async throws {
        let token = try await provider.sign(CraftedTokens.claims(audience: ["another-app"]))
        let said = try #require(await refusal(token))
        #expect(said.description.contains("it is for another-app, not this console"), "\(said)")
    }

    @Test func severalAudiencesNeedThisConsoleAsAuthorizedParty() async throws {
        let token = try await provider.sign(CraftedTokens.claims(audience: [CraftedTokens.client, "another-app"]))
        let said = try #require(await refusal(token))
        #expect(said.description.contains("(azp)"), "\(said)")
    }

    @Test func anExpiredTokenIsRefusedPastTheSkewAndTakenWithinIt() async throws {
        let issued = Date().addingTimeInterval(-400)
        let token = try await provider.sign(CraftedTokens.claims(now: issued, lifetime: 300))
        // Expired 100 s ago: past the 60 s skew.
        let said = try #require(await refusal(token))
        #expect(said.description.contains("it expired"), "\(said)")
        // Expired 30 s ago: within it.
        let recent = try await provider.sign(CraftedTokens.claims(nonce: "n-1", now: Date().addingTimeInterval(-330), lifetime: 300))
        #expect(await refusal(recent) == nil)
    }

    @Test func aTokenIssuedInTheFutureIsRefused() async throws {
        let token = try await provider.sign(CraftedTokens.claims(now: Date().addingTimeInterval(600)))
        let said = try #require(await refusal(token))
        #expect(said.description.contains("issued in the future"), "\(said)")
    }

    @Test func anotherNonceIsRefused() async throws {
        let token = try await provider.sign(CraftedTokens.claims(nonce: "n-2"))
        #expect(await refusal(token) == .token("its nonce is not the one this sign-in began with"))
        let none = try await provider.sign(CraftedTokens.claims(nonce: nil))
        #expect(await refusal(none) == .token("its nonce is not the one this sign-in began with"))
    }

    @Test func aTokenReplayedIsRefusedTheSecondTime() async throws {
        let token = try await provider.sign(CraftedTokens.claims())
        let (keys, ledger) = (provider.providerKeys(), NonceLedger())
        _ = try await check.verify(token, keys: keys, nonce: "n-1", ledger: ledger, now: Date())
        await #expect(throws: SignInRefusal.token("its nonce was used before (a token replayed)")) {
            try await check.verify(token, keys: keys, nonce: "n-1", ledger: ledger, now: Date())
        }
    }

    @Test func aKeyIDTheJWKSLacksIsRefusedNamingTheIDsItHas() async throws {
        let token = try await CraftedTokens.forged(CraftedTokens.claims(), kid: "k9")
        #expect(await refusal(token) == .token("its key id k9 is not in the provider's JWKS (it has: k1)"))
    }

    @Test func aRotatedKeyIsFollowedWithOneFetchAndOnlyOnceWithinTheWait() async throws {
        let clock = Clock(Date())
        let keys = provider.providerKeys(now: { clock.now }, refetchAfter: 2)
        let first = try await provider.sign(CraftedTokens.claims(nonce: "a"))
        _ = try await check.verify(first, keys: keys, nonce: "a", ledger: NonceLedger(), now: Date())
        #expect(provider.fetches.withLock { $0 } == 1)
        provider.rotate(to: "k2")
        // Within the wait, an unknown id does not fetch again.
        let rotated = try await provider.sign(CraftedTokens.claims(nonce: "b"), kid: "k2")
        await #expect(throws: SignInRefusal.self) { try await check.verify(rotated, keys: keys, nonce: "b", ledger: NonceLedger(), now: Date()) }
        #expect(provider.fetches.withLock { $0 } == 1)
        clock.advance(3)
        let claims = try await check.verify(rotated, keys: keys, nonce: "b", ledger: NonceLedger(), now: Date())
        #expect(claims.nonce == "b" && provider.fetches.withLock { $0 } == 2)
        // The old key is gone from the provider's set, so a token it signed is refused now.
        await #expect(throws: SignInRefusal.self) { try await check.verify(first, keys: keys, nonce: "a", ledger: NonceLedger(), now: Date()) }
    }

    @Test func aMalformedTokenIsRefused() async throws {
        #expect(await refusal("not.a.token")?.description.contains("not a JWT") == true)
        #expect(await refusal("")?.description.contains("not a JWT") == true)
    }
}

/// A clock a test moves.
final class Clock: Sendable {
    let time: Mutex<Date>
    init(_ start: Date) { time = Mutex(start) }
    var now: Date { time.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { time.withLock { $0 = $0.addingTimeInterval(seconds) } }
}
