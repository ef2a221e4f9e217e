import KeypadHAL
import KioskPadConfig
import KioskPadCore

/// `entry:` and `lockout:`, with ESPHome key_collector's key names.
enum EntrySection {
    static func read(_ reader: MappingReader) -> EntryOptions {
        var options = EntryOptions()
        let lengths = EntryOptions.lengthRange
        options.mode = reader.choice("mode", default: .pin)
        options.minLength = reader.int("min_length", default: 4, range: lengths)
        options.maxLength = reader.int("max_length", default: max(options.minLength, 4), range: lengths)
        options.endKeyRequired = reader.bool("end_key_required", default: false)
        options.bindings = KeyBindings(
            allowedKeys: Set(reader.labels("allowed_keys", default: "0123456789")),
            endKeys: Set(reader.labels("end_keys", default: "#")),
            backKeys: Set(reader.labels("back_keys", default: "*")),
            clearKeys: Set(reader.labels("clear_keys", default: "")),
            cancelKeys: Set(reader.labels("cancel_keys", default: "")),
            helpKeys: Set(reader.labels("help_keys", default: "?")),
            startKeys: Set(reader.labels("start_keys", default: "")))
        options.inactivityTimeout = reader.seconds("timeout_s", default: 10, range: 1...600)
        options.resultDuration = reader.seconds("result_s", default: 3, range: 0.5...60)
        options.challenge = reader.choice("challenge", default: .none)
        options.challengeLength = reader.int("challenge_length", default: 4, range: 2...8)
        options.challengeAlphabet = reader.labels("challenge_alphabet", default: "0123456789")
        options.enrolment = reader.bool("enrolment", default: false)
        validate(options, reader)
        reader.finish()
        return options
    }

    static func validate(_ options: EntryOptions, _ reader: MappingReader) {
        let log = reader.log
        if options.minLength > options.maxLength {
            log.report(reader.keyPath("min_length"), "\(options.minLength) is more than max_length \(options.maxLength)", at: reader.value("min_length"))
        }
        if let bad = options.bindings.allowedKeys.sorted().first(where: { !("0"..."9").contains($0) }) {
            log.report(
                reader.keyPath("allowed_keys"), "\(ConfigText.quoted(String(bad))) is not a digit; entries are digits only (0-9)",
                at: reader.value("allowed_keys"))
        }
        let noEndKey = options.bindings.endKeys.isEmpty
        if noEndKey && options.endKeyRequired {
            log.report(reader.keyPath("end_keys"), "is empty but end_key_required is true; give at least one key", at: reader.value("end_keys"))
        } else if noEndKey && options.minLength < options.maxLength {
            log.report(reader.keyPath("end_keys"), "is empty, so entries shorter than max_length could never be submitted", at: reader.value("end_keys"))
        }
        if options.enrolment && noEndKey {
            log.report(reader.keyPath("enrolment"), "needs an end key (end_keys): it starts choosing a PIN and submits the code", at: reader.value("enrolment"))
        }
        for conflict in options.bindings.conflicts {
            log.report(reader.path, "key '\(conflict.label)' is in both \(conflict.roles.joined(separator: " and ")); give each key one job", at: reader.node)
        }
        if options.challenge == .beforePIN {
            if options.challengeAlphabet.isEmpty {
                log.report(reader.keyPath("challenge_alphabet"), "is empty; give the keys a challenge may use", at: reader.value("challenge_alphabet"))
            }
            if let bad = options.challengeAlphabet.first(where: { !options.bindings.allowedKeys.contains($0) }) {
                log.report(
                    reader.keyPath("challenge_alphabet"), "\(ConfigText.quoted(String(bad))) is not in allowed_keys; a challenge must be typeable",
                    at: reader.value("challenge_alphabet"))
            }
        }
    }
}
