import DoorAssembly
import DoorConfig
import KeypadHAL
import KioskPadConfig

/// `kioskpad door off`: every configured output line requested at its inactive level and
/// released again, where it stays (a Raspberry Pi kernel keeps a released output's level).
public enum OutputLinesOff {
    /// Switches each of `outputs` off; one result per line, in order: nil when it is off,
    /// or the error that names its key.
    public static func switchOff(_ outputs: [(key: String, line: OutputLineConfiguration)]) -> [(key: String, error: (any Error)?)] {
        outputs.map { key, line in
            do {
                // Requesting the line drives it inactive; releasing it (end of scope) leaves it there.
                _ = try GPIOOutputLine(line, key: key)
                return (key, nil)
            } catch {
                return (key, error)
            }
        }
    }
}
