import KioskPadAccess
import Testing

@Suite("RFC 6238 TOTP")
struct TOTPTests {
    // RFC 6238 Appendix B, SHA-1, secret "12345678901234567890", 8 digits.
    @Test(arguments: [
        (59, "94287082"), (1_111_111_109, "07081804"), (1_111_111_111, "14050471"),
        (1_234_567_890, "89005924"), (2_000_000_000, "69279037"), (20_000_000_000, "65353130"),
    ])
    func appendixBVectors(time: Int, code: String) {
        let totp = TOTP(secret: Array("12345678901234567890".utf8), digits: 8)
        #expect(totp.code(step: totp.step(at: time)) == code)
    }

    @Test func acceptsOneStepEitherSideAndNoMore() {
        let totp = TOTP(secret: Array("12345678901234567890".utf8))
        let now = 1_700_000_000
        let current = Array(totp.code(step: totp.step(at: now)).utf8)
        #expect(totp.matchingStep(current, at: now) == totp.step(at: now))
        #expect(totp.matchingStep(current, at: now + 30) != nil)
        #expect(totp.matchingStep(current, at: now - 30) != nil)
        #expect(totp.matchingStep(current, at: now + 61) == nil)
    }

    @Test func base32DecodesAuthenticatorSecrets() {
        #expect(TOTP.base32Decode("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ") == Array("12345678901234567890".utf8))
        #expect(TOTP.base32Decode("not base32!") == nil)
    }
}
