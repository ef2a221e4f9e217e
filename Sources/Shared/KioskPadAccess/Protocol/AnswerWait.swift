/// How long a door waits for the answer to the request it sends now: the `kioskpad-wait-ms`
/// header, in milliseconds, set anew on each try (a retry has what is left of the deadline).
/// Past it the door has shown "Verifier unavailable" or decided offline, so the site commits
/// nothing for that request (no code or pass used, no denial counted, the request's id not
/// taken) and answers 503. A request without the header (an older door) is decided as before;
/// one with a value that is not a wait (``milliseconds(_:)`` nil) is refused (400).
public enum AnswerWait {
    /// The header's name.
    public static let header = "kioskpad-wait-ms"
    /// The values a door sends: 1 to 6 digits, no leading zero.
    public static let range = 1...999_999
    /// What a refused value is told.
    public static let shape = "kioskpad-wait-ms must be the milliseconds the door waits for this answer: 1 to 999999, digits only"

    /// The header's value, nil when it is not 1 to 6 ASCII digits without a leading zero.
    public static func milliseconds(_ text: String) -> Int? {
        guard (1...6).contains(text.count), text.allSatisfy(\.isASCIIDigit), text.first != "0", let value = Int(text) else { return nil }
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
