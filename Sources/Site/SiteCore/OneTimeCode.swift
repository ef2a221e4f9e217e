import KioskPadAccess
import KioskPadCore

/// Single-use codes: `length` random digits, printed once when issued and kept only as a
/// salted hash with an expiry (in the verifier's database).
public enum OneTimeCode {
    /// PBKDF2 work factor of a code's hash: a code lives minutes, and every live code is
    /// checked against each code attempt.
    public static let hashIterations = 10_000

    /// `length` random digits from the system's generator.
    public static func make(length: Int) -> SecretDigits {
        let digits = DigitBuffer(capacity: length)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<length { digits.append(UInt8.random(in: 0...9, using: &generator)) }
        return digits.take()
    }

    /// What a code attempt with no candidate row checks, so a wrong code costs what a right
    /// one does (one hash at the codes' work factor) when a lookup tag left nothing to check.
    static let decoy = PINHash(iterations: hashIterations, salt: [UInt8](repeating: 0, count: 16), hash: [UInt8](repeating: 0, count: 32))

    /// The first of `codes` and of `passes` whose hash `value` matches; every hash is checked
    /// (no early exit), and the ``decoy`` when there is none to check.
    public static func match(_ value: SecretDigits, among codes: [IssuedCode], passes: [IssuedVisitorPass]) -> (IssuedCode?, IssuedVisitorPass?) {
        if codes.isEmpty, passes.isEmpty {
            _ = decoy.matches(value)
            return (nil, nil)
        }
        return (match(value, among: codes), match(value, among: passes))
    }

    /// The first of `codes` whose hash `value` matches; every hash is checked (no early exit).
    public static func match(_ value: SecretDigits, among codes: [IssuedCode]) -> IssuedCode? {
        match(value, among: codes, hash: \.hash)
    }

    /// The first of `passes` whose hash `value` matches; every hash is checked (no early exit).
    public static func match(_ value: SecretDigits, among passes: [IssuedVisitorPass]) -> IssuedVisitorPass? {
        match(value, among: passes, hash: \.hash)
    }

    private static func match<Issued>(_ value: SecretDigits, among issued: [Issued], hash: KeyPath<Issued, PINHash>) -> Issued? {
        var matched: Issued?
        for item in issued where item[keyPath: hash].matches(value) { matched = matched ?? item }
        return matched
    }
}

/// How long a signed request's `webhook-id` is remembered: a signature's timestamp may be up
/// to 5 minutes behind or ahead of the verifier's clock, so 10 minutes after it was seen.
public enum ReplayWindow {
    public static let seconds: Double = 600
}
