/// How long a door waits for the answer to the request it sends now: the `kioskpad-wait-ms`
/// header, in milliseconds, set anew on each try (a retry has what is left of the deadline).
/// Past it the door has shown "Verifier unavailable" or decided offline, so the site commits
/// nothing for that request (no code or pass used, no denial counted, the request's id not
/// taken) and answers 503. A request without the header (an older door) is decided as before.
public enum AnswerWait {
    /// The header's name.
    public static let header = "kioskpad-wait-ms"
    /// The values taken; anything else is ignored (the request is decided as without one).
    public static let range = 1...300_000

    /// The header's value, nil when it is absent, not a number, or out of ``range``.
    public static func milliseconds(_ text: String?) -> Int? {
        guard let text, text.count <= 6, text.allSatisfy(\.isASCIIDigit), let value = Int(text), range.contains(value) else { return nil }
        return value
    }

    /// How much of a wait of `milliseconds` the site may spend before its commit: the rest is
    /// for the commit and the answer's way back (a fifth of it, at most 250 ms).
    public static func usable(_ milliseconds: Int) -> Duration {
        .milliseconds(milliseconds - min(250, milliseconds / 5))
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
