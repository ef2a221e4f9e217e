import DoorAssembly
import DoorConfig
import KeypadDisplay
import KioskPadConfig
import KioskPadCore

/// `kioskpad display test`'s hardware side: the configured display shows each frame of
/// ``DisplayTestSequence`` in turn (on an LCD, each one confirmed written before the next),
/// so the command reaches the display only through this composition root.
public enum DisplayCheck {
    /// Shows the test frames, `pause` apart; `print` gets the progress lines (frame names and
    /// the bytes written, on an LCD only: on a terminal they would garble the panel).
    public static func run(_ configuration: DisplayConfiguration, pause: Duration, print: @escaping @Sendable (String) -> Void) async throws {
        let driver = try TerminalAssembly.display(for: configuration) { print("display: \($0)") }
        let lcd = driver as? HD44780Display
        for (name, frame) in DisplayTestSequence.frames(composer: TerminalAssembly.composer(for: configuration)) {
            if lcd != nil { print("showing: \(name)") }
            try await driver.show(frame)
            if let lcd, !lcd.waitUntilShown(timeout: .seconds(5)) {
                throw KeyedError(key: "display.i2c_address", message: "the LCD stopped answering while showing '\(name)'", kind: .unavailable(retryable: true))
            }
            try await Task.sleep(for: pause)
        }
        if let lcd { print("display test done: \(lcd.statistics.bytes) bytes written") }
        await driver.close()
    }
}
