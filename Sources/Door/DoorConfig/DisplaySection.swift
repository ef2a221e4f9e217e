import KeypadHAL
import KioskPadConfig
import KioskPadCore
import Yams

/// `display:` - driver, geometry, mask character, texts, and the LCD's I2C settings.
enum DisplaySection {
    static let lcdGeometries = [DisplayGeometry.lcd1602, DisplayGeometry.lcd2004]
    static let i2cKeys = ["i2c_bus", "i2c_address", "backlight", "pin_map", "backlight_timeout_s"]

    static func read(_ reader: MappingReader) -> DisplayConfiguration {
        let driver: DisplayDriverKind = reader.choice("driver", default: .ansi)
        let isLCD = driver == .hd44780
        let fallback = isLCD ? DisplayGeometry.lcd1602 : DisplayGeometry.lcd2004
        let columns = reader.int("columns", default: fallback.columns, range: DisplayGeometry.columnRange)
        let rows = reader.int("rows", default: fallback.rows, range: DisplayGeometry.rowRange)
        var geometry = DisplayGeometry(columns: columns, rows: rows)
        if isLCD && !lcdGeometries.contains(geometry) {
            reader.log.report(reader.keyPath("columns"), "\(geometry) is not a supported HD44780 size; valid: 16x2, 20x4", at: reader.value("columns"))
            geometry = fallback
        }
        var mask = reader.labels("mask_char", default: "*")
        if mask.count != 1 {
            reader.log.report(reader.keyPath("mask_char"), "must be exactly one printable character", at: reader.value("mask_char"))
            mask = ["*"]
        }
        let maskGlyph: MaskGlyph = reader.choice("mask_glyph", default: .char)
        let texts = readTexts(reader.child("texts"))
        var i2c: I2CDisplayConfiguration?
        var backlightTimeout: Duration?
        if isLCD {
            let timeout = reader.seconds("backlight_timeout_s", default: 0, range: 0...86400)
            backlightTimeout = timeout > .zero ? timeout : nil
            i2c = I2CDisplayConfiguration(
                bus: reader.int("i2c_bus", default: 1, range: 0...255),
                address: address(reader),
                backlight: reader.bool("backlight", default: true),
                pins: pinMap(reader))
        } else {
            for key in i2cKeys where reader.has(key) {
                reader.log.report(reader.keyPath(key), "is only used with driver: hd44780", at: reader.value(key))
            }
        }
        reader.finish()
        var display = DisplayConfiguration(driver: driver, geometry: geometry, maskCharacter: mask[0], maskGlyph: maskGlyph, texts: texts, i2c: i2c)
        display.backlightTimeout = backlightTimeout
        return display
    }

    /// `pin_map`: which PCF8574 pin (0...7) carries each LCD signal; all eight distinct.
    static func pinMap(_ parent: MappingReader) -> [Int] {
        guard parent.has("pin_map") else { return I2CDisplayConfiguration.standardPins }
        let reader = parent.child("pin_map")
        let pins = zip(I2CDisplayConfiguration.pinNames, I2CDisplayConfiguration.standardPins).map { name, fallback in
            reader.int(name, default: fallback, range: 0...7)
        }
        if Set(pins).count != pins.count {
            reader.log.report(
                reader.path,
                "every signal needs its own PCF8574 pin; got \(zip(I2CDisplayConfiguration.pinNames, pins).map { "\($0)=P\($1)" }.joined(separator: " "))",
                at: reader.node)
        }
        reader.finish()
        return pins
    }

    /// A 7-bit I2C address, written `0x27` or `39`.
    static func address(_ reader: MappingReader) -> Int {
        let valid = 0x03...0x77
        guard let node = reader.value("i2c_address") else { return 0x27 }
        let text = node.string ?? ""
        let number = text.lowercased().hasPrefix("0x") ? Int(text.dropFirst(2), radix: 16) : node.int
        guard let number, valid.contains(number) else {
            reader.log.report(
                reader.keyPath("i2c_address"), "\(ConfigText.quoted(text)) is not a 7-bit I2C address; valid: 0x03...0x77 (e.g. 0x27 or 0x3f)", at: node)
            return 0x27
        }
        return number
    }

    static func readTexts(_ reader: MappingReader) -> DisplayTexts {
        var texts = DisplayTexts()
        for (key, field) in DisplayTexts.configKeys {
            let value = reader.string(key, default: texts[keyPath: field])
            if let bad = value.unicodeScalars.first(where: { !(0x20...0x7E).contains($0.value) }) {
                reader.log.report(
                    reader.keyPath(key), "\(ConfigText.quoted(String(bad))) is not printable ASCII; text displays show ASCII only", at: reader.value(key))
                continue
            }
            texts[keyPath: field] = value
        }
        reader.finish()
        return texts
    }
}
