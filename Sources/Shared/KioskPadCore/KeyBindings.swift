/// Maps keypad labels to ``KeyAction``s, using ESPHome key_collector's vocabulary:
/// `allowed_keys` become digits, `end_keys` submit, `back_keys` erase one, `clear_keys`
/// erase all, `cancel_keys` abandon, `help_keys` show help, `start_keys` begin an entry.
/// Anything else is ignored.
public struct KeyBindings: Equatable, Sendable {
    public var allowedKeys: Set<Character>
    public var endKeys: Set<Character>
    public var backKeys: Set<Character>
    public var clearKeys: Set<Character>
    public var cancelKeys: Set<Character>
    public var helpKeys: Set<Character>
    /// When not empty, digits are ignored until one of these is pressed (ESPHome's `start_keys`).
    public var startKeys: Set<Character>

    public init(
        allowedKeys: Set<Character> = Set("0123456789"),
        endKeys: Set<Character> = ["#"],
        backKeys: Set<Character> = ["*"],
        clearKeys: Set<Character> = [],
        cancelKeys: Set<Character> = [],
        helpKeys: Set<Character> = ["?"],
        startKeys: Set<Character> = []
    ) {
        self.startKeys = startKeys
        self.allowedKeys = allowedKeys
        self.endKeys = endKeys
        self.backKeys = backKeys
        self.clearKeys = clearKeys
        self.cancelKeys = cancelKeys
        self.helpKeys = helpKeys
    }

    /// The action for `input`, or `nil` when the key has no effect.
    public func action(for input: KeyInput) -> KeyAction? {
        switch input {
        case .action(let action):
            return action
        case .label(let label):
            if endKeys.contains(label) { return .submit }
            if backKeys.contains(label) { return .back }
            if clearKeys.contains(label) { return .clear }
            if cancelKeys.contains(label) { return .cancel }
            if helpKeys.contains(label) { return .help }
            if startKeys.contains(label) { return .start }
            if allowedKeys.contains(label), let value = label.wholeNumberValue, (0...9).contains(value) {
                return .digit(UInt8(value))
            }
            return nil
        }
    }

    /// Pairs of role names that share a label; a valid binding has none.
    public var conflicts: [(label: Character, roles: [String])] {
        let roles: [(String, Set<Character>)] = [
            ("allowed_keys", allowedKeys), ("end_keys", endKeys), ("back_keys", backKeys),
            ("clear_keys", clearKeys), ("cancel_keys", cancelKeys), ("help_keys", helpKeys),
            ("start_keys", startKeys),
        ]
        var owners: [Character: [String]] = [:]
        for (name, keys) in roles {
            for key in keys { owners[key, default: []].append(name) }
        }
        return owners.filter { $0.value.count > 1 }
            .map { (label: $0.key, roles: $0.value) }
            .sorted { $0.label < $1.label }
    }
}
