import KioskPadAccess
import KioskPadCore

/// What a door's own config checker holds each setting to (its `entry:`, `lockout:`, `door:`,
/// `display:` and `verifier.offline` readers): a value outside is refused at the site, naming
/// the key and the range, instead of reaching the door and being refused there with the whole
/// settings version. `DoorSettingsRangesTests` (in the door's config tests) checks each bound
/// against the door's checker.
extension DoorSettings {
    /// The numbers' ranges, in the key's own unit.
    public static let ranges: [String: ClosedRange<Double>] = [
        "entry.min_length": Double(EntryOptions.lengthRange.lowerBound)...Double(EntryOptions.lengthRange.upperBound),
        "entry.max_length": Double(EntryOptions.lengthRange.lowerBound)...Double(EntryOptions.lengthRange.upperBound),
        "entry.timeout_s": 1...600, "entry.result_s": 0.5...60, "entry.challenge_length": 2...8,
        "lockout.max_failures": 1...100, "lockout.window_s": 1...86_400, "lockout.lockout_s": 1...86_400, "lockout.max_lockout_s": 1...604_800,
        "display.backlight_timeout_s": 0...86_400,
        "door.unlock_s": 1...300, "door.max_unlock_s": 1...300, "door.held_open_s": 1...3600, "door.open_grace_s": 0...60,
        "verifier.offline.sync_s": 5...86_400, "verifier.offline.max_age_h": 1...720,
    ]

    /// The words a choice may be.
    public static let choices: [String: [String]] = [
        "entry.challenge": ChallengeStep.allCases.map(\.rawValue),
        "verifier.offline.mode": ["off", "fallback"],
    ]

    /// Pairs whose first may not be more than its second, once both are known.
    static let orderedPairs = [
        ("entry.min_length", "entry.max_length"), ("lockout.lockout_s", "lockout.max_lockout_s"), ("door.unlock_s", "door.max_unlock_s"),
    ]

    /// `value` for `key` within what the door accepts; the error names the key and the range.
    static func checkRange(_ key: String, _ value: Value) throws {
        if let words = choices[key], case .text(let word) = value, !words.contains(word) {
            throw UserEditError(description: "\(key): '\(word)' must be one of \(words.joined(separator: ", "))")
        }
        guard let range = ranges[key], let number = value.number else { return }
        guard range.contains(number) else {
            throw UserEditError(
                description: "\(key): \(value.shown) is outside what a door accepts (\(Self.shown(range.lowerBound)) to \(Self.shown(range.upperBound)))")
        }
    }

    /// Refuses settings a door would refuse as a whole: a pair out of order in `effective`
    /// (the site's settings with the door's own on top), and a minimum entry length above the
    /// shortest a door's file allows unless the maximum is given beside it (a door whose file
    /// gives none would take the minimum as its maximum and make every entry that long).
    public static func checkTogether(_ effective: DoorSettings, scope: String) throws {
        for (low, high) in orderedPairs {
            if let first = effective.number(low), let second = effective.number(high), first > second {
                throw UserEditError(
                    description: "\(low) (\(shown(first))) is more than \(high) (\(shown(second))) in the settings \(scope) gets; a door refuses that")
            }
        }
        if let minimum = effective.number("entry.min_length"), minimum > Double(EntryOptions.lengthRange.lowerBound),
            effective.number("entry.max_length") == nil
        {
            throw UserEditError(
                description:
                    "entry.min_length=\(shown(minimum)) needs entry.max_length (\(shown(minimum)) to \(EntryOptions.lengthRange.upperBound)) beside it: a door whose file gives no max_length would make every entry \(shown(minimum)) digits long"
            )
        }
    }

    /// `key`'s value as a number, when it is one.
    func number(_ key: String) -> Double? {
        values[key]?.number
    }

    static func shown(_ number: Double) -> String {
        number == number.rounded() ? String(Int64(number)) : String(number)
    }
}

extension DoorSettings.Value {
    /// The value as a number, when it is one (a whole number or a fraction).
    var number: Double? {
        switch self {
        case .integer(let whole): Double(whole)
        case .number(let fraction): fraction
        default: nil
        }
    }
}
