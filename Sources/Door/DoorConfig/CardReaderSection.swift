import KioskPadConfig

/// `card_reader:` - a USB card reader of the door's own, beside its keypad: a reader that
/// types each card's number and Enter (a "keyboard wedge"), read through the kernel's input
/// layer and grabbed, so its typing reaches nothing else.
public struct CardReaderConfiguration: Equatable, Sendable {
    /// `card_reader.device`: `/dev/input/by-id/...-event-kbd` or `name:TEXT`.
    public var device: String

    public init(device: String) {
        self.device = device
    }
}

/// Reads `card_reader:` (absent: no card reader of its own).
enum CardReaderSection {
    static func read(_ top: MappingReader, keypad: KeypadConfiguration) -> CardReaderConfiguration? {
        top.declare("card_reader")
        guard top.has("card_reader") else { return nil }
        let reader = top.child("card_reader")
        let driver = reader.string("driver", default: "evdev")
        if driver != "evdev" {
            reader.log.report(
                reader.keyPath("driver"), "\(ConfigText.quoted(driver)) is not a card reader driver; valid: evdev (a USB reader that types)",
                at: reader.value("driver"))
        }
        if !reader.has("device") {
            reader.log.report(
                reader.keyPath("device"), "is required: the reader's input device, a path like /dev/input/by-id/usb-...-event-kbd, or name:TEXT",
                at: reader.node)
        }
        let device = reader.string("device", default: "")
        if reader.has("device"), !device.hasPrefix("/"), !device.hasPrefix("name:") {
            reader.log.report(reader.keyPath("device"), "\(ConfigText.quoted(device)) is not a path (/dev/input/...) or name:TEXT", at: reader.value("device"))
        }
        if let keypadDevice = keypad.evdev?.device, keypadDevice == device {
            reader.log.report(
                reader.keyPath("device"), "is keypad.device as well: a card reader is a device of its own (one device is grabbed once)",
                at: reader.value("device"))
        }
        if keypad.driver == .terminal {
            reader.log.report(reader.keyPath("device"), "needs a door keypad (keypad.driver gpio, evdev, wiegand or osdp)", at: reader.node)
        }
        reader.finish()
        return CardReaderConfiguration(device: device)
    }
}
