import KioskPadConfig
import KioskPadCore

extension KeypadConfiguration {
    /// The GPIO keypad section, for the commands that read a door's matrix (`run`, `keytest`);
    /// an error naming `keypad.driver` when it is `terminal` (the keyboard, which only
    /// `simulate` reads) or `gpio` without its section.
    public func gpioSection() throws -> GPIOKeypadConfiguration {
        guard driver == .gpio, let gpio else {
            throw KeyedError(
                key: "keypad.driver",
                message: "is '\(driver.rawValue)'"
                    + (driver == .terminal ? ", the computer's keyboard, which only `kioskpad simulate` reads" : " without its keypad.gpio section")
                    + "; this command reads a door's keypad: driver gpio, evdev, wiegand or osdp")
        }
        return gpio
    }
}
