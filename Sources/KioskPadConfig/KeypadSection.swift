import KeypadCore
import Yams

/// `keypad:` - the key source, and for `driver: gpio` the matrix wiring.
enum KeypadSection {
    static let gpioKeys = [
        "chip", "rows", "columns", "keys", "active_low", "has_diodes", "settle_us",
        "debounce_press_ms", "debounce_release_ms", "hold_ms", "stuck_s",
    ]
    static let maxLines = MatrixLimits.maxLines

    static func read(_ reader: MappingReader, entry: EntryOptions) -> KeypadConfiguration {
        let driver: KeypadDriverKind = reader.choice("driver", default: .terminal)
        var gpio: GPIOKeypadConfiguration?
        if driver == .gpio {
            gpio = readGPIO(reader, entry: entry)
        } else {
            for key in gpioKeys where reader.has(key) {
                reader.log.report(reader.keyPath(key), "is only used with driver: gpio", at: reader.value(key))
            }
        }
        reader.finish()
        return KeypadConfiguration(driver: driver, gpio: gpio)
    }

    static func readGPIO(_ reader: MappingReader, entry: EntryOptions) -> GPIOKeypadConfiguration {
        let log = reader.log
        if !reader.has("chip") {
            log.report(reader.keyPath("chip"), "is required with driver: gpio (a name like gpiochip0, a path, or a chip label)", at: reader.node)
        }
        let chip = reader.string("chip", default: "gpiochip0")
        let rows = lines(reader, "rows")
        let columns = lines(reader, "columns")
        let all = rows + columns
        if let repeated = all.first(where: { line in all.filter { $0 == line }.count > 1 }) {
            log.report(reader.keyPath("columns"), "line \(repeated) is used twice; each row and column needs its own line", at: reader.value("columns"))
        }
        let defaultKeys = rows.count == 4 && columns.count == 4 ? "123A456B789C*0#D" : ""
        var keys = reader.labels("keys", default: defaultKeys)
        if keys.count != rows.count * columns.count {
            log.report(reader.keyPath("keys"), "has \(keys.count) labels but the matrix has \(rows.count)x\(columns.count) = \(rows.count * columns.count) keys; give one label per key, row by row", at: reader.value("keys"))
            keys = Array(repeating: "?", count: rows.count * columns.count)
        }
        if entry.challenge == .beforePIN, let bad = entry.challengeAlphabet.first(where: { !keys.contains($0) }) {
            log.report("entry.challenge_alphabet", "\(ConfigText.quoted(String(bad))) is not a key on this keypad (keypad.keys)", at: nil)
        }
        return GPIOKeypadConfiguration(
            chip: chip, rows: rows, columns: columns, keys: keys,
            activeLow: reader.bool("active_low", default: true),
            hasDiodes: reader.bool("has_diodes", default: false),
            settle: .microseconds(reader.int("settle_us", default: 50, range: 0...100_000)),
            debouncePress: .milliseconds(reader.int("debounce_press_ms", default: 10, range: 0...1000)),
            debounceRelease: .milliseconds(reader.int("debounce_release_ms", default: 10, range: 0...1000)),
            hold: .milliseconds(reader.int("hold_ms", default: 1000, range: 0...60_000)),
            stuck: .seconds(reader.int("stuck_s", default: 30, range: 1...3600)))
    }

    /// A list of 1...8 lines, each an offset (`17`) or a line name (`GPIO17`).
    static func lines(_ reader: MappingReader, _ key: String) -> [LineReference] {
        let path = reader.keyPath(key)
        guard let node = reader.value(key) else {
            reader.log.report(path, "is required with driver: gpio: a list of 1...\(maxLines) line offsets or line names", at: reader.node)
            return []
        }
        guard case .sequence(let sequence) = node, (1...maxLines).contains(sequence.count) else {
            reader.log.report(path, "must be a list of 1...\(maxLines) line offsets or line names, e.g. [5, 6, 13, 19]", at: node)
            return []
        }
        return sequence.enumerated().compactMap { index, item in
            switch ConfigValues.line(item) {
            case .line(let line):
                return line
            case .offsetOutOfRange(let offset):
                reader.log.report("\(path)[\(index)]", "\(offset) is out of range \(ConfigValues.lineOffsets)", at: item)
            case .invalid:
                reader.log.report("\(path)[\(index)]", "must be a line offset or a line name", at: item)
            }
            return nil
        }
    }
}
