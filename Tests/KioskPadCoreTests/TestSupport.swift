import KioskPadCore

/// Deterministic randomness for challenge codes and property tests (SplitMix64).
final class SeededRandomness: ChallengeRandomness, @unchecked Sendable {
    // @unchecked: used from one test at a time.
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    func index(below upperBound: Int) -> Int {
        Int(next() % UInt64(upperBound))
    }
}

/// Feeds a string of keypad labels to a model; returns every submission.
@discardableResult
func type(_ labels: String, into model: EntryModel) -> [Submission] {
    labels.compactMap { model.handle(.label($0)) }
}

/// The digits of a submission as a string (tests only; production never does this).
func revealed(_ submission: Submission) -> String {
    submission.value.withASCIIBytes { String(decoding: $0, as: UTF8.self) }
}
