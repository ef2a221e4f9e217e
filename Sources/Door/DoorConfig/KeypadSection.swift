import KeypadHAL
import KioskPadConfig
import KioskPadCore
import Yams

/// `keypad:` - the key source, and for `driver: gpio` the matrix wiring.
enum KeypadSection {
    static let gpioKeys = [
        "rows", "columns", "keys", "active_low", "has_diodes", "settle_us",
        "debounce_press_ms", "debounce_release_ms", "hold_ms", "stuck_s",
    ]
    static let wiegandKeys = ["d0", "d1", "frame_gap_ms", "long_frames"]
    static let maxLines = MatrixLimits.maxLines

    static func read(_ reader: MappingReader, entry: EntryOptions, baseDirectory: String = ".") -> KeypadConfiguration {
        let driver: KeypadDriverKind = reader.choice("driver", default: .terminal)
        var gpio: GPIOKeypadConfiguration?
        var evdev: EvdevKeypadConfiguration?
        var wiegand: WiegandKeypadConfiguration?
        var osdp: OSDPKeypadConfiguration?
        if driver != .gpio && driver != .wiegand && reader.has("chip") {
            reader.log.report(reader.keyPath("chip"), "is only used with driver: gpio or wiegand", at: reader.value("chip"))
        }
        if driver == .wiegand {
            wiegand = readWiegand(reader)
        } else {
            for key in wiegandKeys where reader.has(key) {
                reader.log.report(reader.keyPath(key), "is only used with driver: wiegand", at: reader.value(key))
            }
        }
        if driver == .gpio {
            gpio = readGPIO(reader, entry: entry)
        } else {
            for key in gpioKeys where reader.has(key) {
                reader.log.report(reader.keyPath(key), "is only used with driver: gpio", at: reader.value(key))
            }
        }
        if driver == .evdev {
            evdev = readEvdev(reader)
        } else if driver == .osdp {
            osdp = readOSDP(reader, baseDirectory: baseDirectory)
        } else {
            for key in ["device"] where reader.has(key) {
                reader.log.report(reader.keyPath(key), "is only used with driver: evdev or osdp", at: reader.value(key))
            }
        }
        if driver != .evdev, reader.has("key_map") {
            reader.log.report(reader.keyPath("key_map"), "is only used with driver: evdev", at: reader.value("key_map"))
        }
        if driver != .osdp {
            for key in osdpKeys where reader.has(key) {
                reader.log.report(reader.keyPath(key), "is only used with driver: osdp", at: reader.value(key))
            }
        }
        reader.finish()
        return KeypadConfiguration(driver: driver, gpio: gpio, evdev: evdev, wiegand: wiegand, osdp: osdp)
    }

    /// `chip`, `d0` and `d1` (required: offsets or line names), `frame_gap_ms` and `long_frames`.
    static func readWiegand(_ reader: MappingReader) -> WiegandKeypadConfiguration {
        if !reader.has("chip") {
            reader.log.report(reader.keyPath("chip"), "is required with driver: wiegand (a name like gpiochip0, a path, or a chip label)", at: reader.node)
        }
        let chip = reader.string("chip", default: "gpiochip0")
        func line(_ key: String) -> LineReference {
            switch ConfigValues.line(reader.value(key)) {
            case .line(let line):
                return line
            case .offsetOutOfRange(let offset):
                reader.log.report(reader.keyPath(key), "\(offset) is out of range \(ConfigValues.lineOffsets)", at: reader.value(key))
            case .invalid:
                reader.log.report(
                    reader.keyPath(key), "is required with driver: wiegand: the line offset or line name of the reader's \(key.uppercased()) wire, e.g. 23",
                    at: reader.value(key) ?? reader.node)
            }
            return .offset(0)
        }
        let d0 = line("d0")
        let d1 = line("d1")
        if reader.has("d0"), reader.has("d1"), d0 == d1 {
            reader.log.report(reader.keyPath("d1"), "is the same line as d0; D0 and D1 need a line each", at: reader.value("d1"))
        }
        return WiegandKeypadConfiguration(
            chip: chip, d0: d0, d1: d1,
            frameGap: .milliseconds(reader.int("frame_gap_ms", default: 25, range: 5...1000)),
            longFrames: reader.choice("long_frames", default: .pin))
    }

    /// `device` (required) and `key_map` (KEY_NAME: "label").
    static func readEvdev(_ reader: MappingReader) -> EvdevKeypadConfiguration {
        if !reader.has("device") {
            reader.log.report(
                reader.keyPath("device"), "is required with driver: evdev: a path like /dev/input/by-id/usb-...-event-kbd, or name:TEXT", at: reader.node)
        }
        let device = reader.string("device", default: "/dev/input/event0")
        if reader.has("device"), !device.hasPrefix("/"), !device.hasPrefix("name:") {
            reader.log.report(reader.keyPath("device"), "\(ConfigText.quoted(device)) is not a path (/dev/input/...) or name:TEXT", at: reader.value("device"))
        }
        var keyMap: [UInt16: Character] = [:]
        let map = reader.child("key_map")
        for name in map.keys.sorted() {
            guard let code = EvdevKeyCodes.codes[name] else {
                map.log.report(
                    map.keyPath(name), "is not a key name this driver knows; valid: \(EvdevKeyCodes.codes.keys.sorted().joined(separator: ", "))",
                    at: map.value(name))
                continue
            }
            let label = map.labels(name, default: "?")
            guard label.count == 1 else {
                map.log.report(map.keyPath(name), "must be one key label, e.g. \"A\"", at: map.value(name))
                continue
            }
            keyMap[code] = label[0]
        }
        map.finish()
        return EvdevKeypadConfiguration(device: device, keyMap: keyMap)
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
            log.report(
                reader.keyPath("keys"),
                "has \(keys.count) labels but the matrix has \(rows.count)x\(columns.count) = \(rows.count * columns.count) keys; give one label per key, row by row",
                at: reader.value("keys"))
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
