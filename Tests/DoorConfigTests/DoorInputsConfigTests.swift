import DoorConfig
import Foundation
import KioskPadConfig
import KioskPadCore
import Testing

/// `door.contact`, `door.exit_button`, `tamper`: input lines with their meaning and times.
@Suite("Config: door inputs and tamper")
struct DoorInputsConfigTests {
    let base = "verifier:\n  kind: demo\ndoor:\n  relay: {chip: gpiochip0, line: 26}\n"

    @Test func defaultsAreANormallyClosedContactAndTamperWithPullUps() throws {
        let configuration = try ConfigLoader.parse(
            yaml: base + """
                  contact: {chip: gpiochip0, line: 17}
                  exit_button: {chip: gpiochip0, line: EXIT}
                tamper: {chip: gpiochip0, line: 27}
                """, source: "t")
        let door = try #require(configuration.daemon.door)
        #expect(
            door.contact == InputLineConfiguration(chip: "gpiochip0", line: .offset(17), activeLow: true, debounce: .milliseconds(50), eventWhenActive: false))
        #expect(door.exitButton == InputLineConfiguration(chip: "gpiochip0", line: .name("EXIT"), eventWhenActive: true))
        #expect(door.heldOpen == .seconds(30) && door.openGrace == .seconds(3) && door.relockOnOpen)
        #expect(configuration.daemon.tamper == TamperConfiguration(input: InputLineConfiguration(chip: "gpiochip0", line: .offset(27), eventWhenActive: false)))
        #expect(configuration.daemon.inputLines.map(\.role.rawValue) == ["door.contact", "door.exit_button", "tamper"])
    }

    @Test func everyKeyIsRead() throws {
        let configuration = try ConfigLoader.parse(
            yaml: base + """
                  contact: {chip: door-sim, line: 3, active_low: false, open_when: active, debounce_ms: 20}
                  held_open_s: 12
                  open_grace_s: 0
                  relock_on_open: false
                tamper: {chip: door-sim, line: 4, tampered_when: active, stop_entry: true}
                display:
                  texts: {tamper: "Case open"}
                """, source: "t")
        let door = try #require(configuration.daemon.door)
        #expect(
            door.contact == InputLineConfiguration(chip: "door-sim", line: .offset(3), activeLow: false, debounce: .milliseconds(20), eventWhenActive: true))
        #expect(door.heldOpen == .seconds(12) && door.openGrace == .zero && !door.relockOnOpen)
        #expect(configuration.daemon.tamper?.stopEntry == true && configuration.daemon.tamper?.input.eventWhenActive == true)
        #expect(configuration.display.texts.tamper == "Case open")
    }

    @Test func mistakesNameTheKeyAndWhatIsValid() {
        let found = configProblems(
            base + """
                  contact: {chip: gpiochip0}
                  exit_button: {chip: gpiochip0, line: 5, open_when: active}
                  held_open_s: 0
                tamper: {chip: gpiochip0, line: 6, tampered_when: sometimes}
                """)
        #expect(found.contains { $0.hasPrefix("door.contact: needs chip and line") })
        #expect(found.contains { $0.hasPrefix("door.exit_button.open_when: unknown key") })
        #expect(found.contains { $0.hasPrefix("door.held_open_s: 0") && $0.contains("1...3600") })
        #expect(found.contains { $0.hasPrefix("tamper.tampered_when: 'sometimes' is not one of: active, inactive") }, "\(found)")
    }
}

@Suite("Config: evdev keypad")
struct EvdevConfigTests {
    @Test func deviceAndKeyMapAreRead() throws {
        let configuration = try ConfigLoader.parse(
            yaml: """
                verifier: {kind: demo}
                keypad:
                  driver: evdev
                  device: /dev/input/by-id/usb-keypad-event-kbd
                  key_map: {KEY_F1: "A", KEY_KPDOT: "?"}
                """, source: "t")
        #expect(configuration.keypad.driver == .evdev)
        #expect(configuration.keypad.evdev == EvdevKeypadConfiguration(device: "/dev/input/by-id/usb-keypad-event-kbd", keyMap: [59: "A", 83: "?"]))
    }

    @Test func mistakesNameTheKey() {
        let found = configProblems(
            """
            verifier: {kind: demo}
            keypad:
              driver: evdev
              device: keypad0
              key_map: {KEY_FOO: "A", KEY_F2: "AB"}
              rows: [1, 2]
            """)
        #expect(found.contains { $0.hasPrefix("keypad.device: 'keypad0' is not a path (/dev/input/...) or name:TEXT") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("keypad.key_map.KEY_FOO: is not a key name this driver knows") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("keypad.key_map.KEY_F2: must be one key label") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("keypad.rows: is only used with driver: gpio") }, "\(found)")
        #expect(configProblems("verifier: {kind: demo}\nkeypad: {driver: evdev}\n").contains { $0.hasPrefix("keypad.device: is required with driver: evdev") })
    }
}

@Suite("Config: Wiegand keypad")
struct WiegandConfigTests {
    @Test func chipLinesAndGapAreRead() throws {
        let configuration = try ConfigLoader.parse(
            yaml: """
                verifier: {kind: demo}
                keypad: {driver: wiegand, chip: gpiochip0, d0: 23, d1: WIEGAND_D1, frame_gap_ms: 40}
                """, source: "t")
        #expect(configuration.keypad.driver == .wiegand)
        #expect(
            configuration.keypad.wiegand == WiegandKeypadConfiguration(chip: "gpiochip0", d0: .offset(23), d1: .name("WIEGAND_D1"), frameGap: .milliseconds(40))
        )
        let defaults = try ConfigLoader.parse(yaml: "verifier: {kind: demo}\nkeypad: {driver: wiegand, chip: c, d0: 1, d1: 2}\n", source: "t")
        #expect(defaults.keypad.wiegand?.frameGap == .milliseconds(25))
    }

    @Test func mistakesNameTheKey() {
        let found = configProblems(
            """
            verifier: {kind: demo}
            keypad: {driver: wiegand, d0: 5, d1: 5, frame_gap_ms: 2, rows: [1], device: /dev/input/event0}
            """)
        #expect(found.contains { $0.hasPrefix("keypad.chip: is required with driver: wiegand") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("keypad.d1: is the same line as d0") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("keypad.frame_gap_ms:") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("keypad.rows: is only used with driver: gpio") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("keypad.device: is only used with driver: evdev or osdp") }, "\(found)")
        let missing = configProblems("verifier: {kind: demo}\nkeypad: {driver: wiegand, chip: c}\n")
        #expect(missing.contains { $0.hasPrefix("keypad.d0: is required with driver: wiegand") }, "\(missing)")
        #expect(missing.contains { $0.hasPrefix("keypad.d1: is required with driver: wiegand") }, "\(missing)")
        let stray = configProblems("verifier: {kind: demo}\nkeypad: {driver: evdev, device: /dev/input/event0, chip: c, d0: 3}\n")
        #expect(stray.contains { $0.hasPrefix("keypad.chip: is only used with driver: gpio or wiegand") }, "\(stray)")
        #expect(stray.contains { $0.hasPrefix("keypad.d0: is only used with driver: wiegand") }, "\(stray)")
    }
}

@Suite("Config: Wiegand long frames")
struct WiegandLongFramesConfigTests {
    @Test func longFramesArePINsByDefaultOrCards() throws {
        let base = "verifier: {kind: demo}\nkeypad: {driver: wiegand, chip: c, d0: 1, d1: 2"
        #expect(try ConfigLoader.parse(yaml: base + "}\n", source: "t").keypad.wiegand?.longFrames == .pin)
        #expect(try ConfigLoader.parse(yaml: base + ", long_frames: card}\n", source: "t").keypad.wiegand?.longFrames == .card)
        let found = configProblems(base + ", long_frames: badge}\n")
        #expect(found.contains { $0.hasPrefix("keypad.long_frames: 'badge' is not one of: pin, card") }, "\(found)")
    }
}

@Suite("Config: a USB card reader beside the keypad")
struct CardReaderConfigTests {
    /// `card_reader:` as read beside a Wiegand keypad (`section` nil: no such section).
    func cardReader(_ section: String?) throws -> CardReaderConfiguration? {
        let keypad = "verifier: {kind: demo}\nkeypad: {driver: wiegand, chip: gpiochip0, d0: 23, d1: 24}\n"
        return try ConfigLoader.parse(yaml: keypad + (section.map { "card_reader: \($0)\n" } ?? ""), source: "t").cardReader
    }

    @Test func theDeviceIsRead() throws {
        #expect(try cardReader(#"{device: "name:RFID Reader"}"#) == CardReaderConfiguration(device: "name:RFID Reader"))
        #expect(try cardReader("{driver: evdev, device: /dev/input/by-id/usb-rfid-event-kbd}")?.device == "/dev/input/by-id/usb-rfid-event-kbd")
        #expect(try cardReader(nil) == nil)
    }

    /// Each mistake, with the evdev keypad on /dev/input/event3, and the start of the problem it gives.
    static let mistakes: [(section: String, problem: String)] = [
        ("{driver: wiegand, device: /dev/input/event4}", "card_reader.driver: 'wiegand' is not a card reader driver; valid: evdev"),
        ("{device: /dev/input/event3}", "card_reader.device: is keypad.device as well"),
        ("{device: /dev/input/event4, baud: 9600}", "card_reader.baud: unknown key"),
        ("{}", "card_reader.device: is required"),
        ("{device: event4}", "card_reader.device: 'event4' is not a path"),
    ]

    @Test func mistakesNameTheKey() {
        for mistake in Self.mistakes {
            let found = configProblems("verifier: {kind: demo}\nkeypad: {driver: evdev, device: /dev/input/event3}\ncard_reader: \(mistake.section)\n")
            #expect(found.contains { $0.hasPrefix(mistake.problem) }, "\(mistake.section): \(found)")
        }
        let terminal = configProblems("verifier: {kind: demo}\ncard_reader: {device: /dev/input/event4}\n")
        #expect(terminal.contains { $0.hasPrefix("card_reader.device: needs a door keypad") }, "\(terminal)")
    }
}
