/// Chooses uniformly random indices; the production source is the system CSPRNG.
public protocol ChallengeRandomness: Sendable {
    func index(below upperBound: Int) -> Int
}

/// The system CSPRNG (`getrandom(2)` on Linux through `SystemRandomNumberGenerator`).
public struct SystemChallengeRandomness: ChallengeRandomness {
    public init() {}
    public func index(below upperBound: Int) -> Int {
        var generator = SystemRandomNumberGenerator()
        return Int.random(in: 0..<upperBound, using: &generator)
    }
}

/// A challenge code: shown on screen, typed back before the PIN. Not a secret.
public struct ChallengeCode: Equatable, Sendable {
    public let characters: [Character]

    public init(_ characters: [Character]) {
        self.characters = characters
    }

    /// Draws `length` characters from `alphabet`.
    public static func draw(
        length: Int, alphabet: [Character], using randomness: some ChallengeRandomness
    ) -> ChallengeCode {
        precondition(!alphabet.isEmpty && length > 0)
        return ChallengeCode((0..<length).map { _ in alphabet[randomness.index(below: alphabet.count)] })
    }

    public var text: String { String(characters) }
}
