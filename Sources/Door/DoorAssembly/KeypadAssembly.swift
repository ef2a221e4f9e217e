import DoorConfig
import KeypadHAL
import KioskPadConfig
import KioskPadCore

/// Builds the GPIO matrix keypad from `keypad:` config.
public enum KeypadAssembly {
    /// The libgpiod this build drives (`libgpiod 1.6.3 (v1 API)`), for `--version`.
    public static var gpioLibrary: String { GPIOBackendFactory.library }

    /// Scan period (start to start) while a key is down or a change is being debounced.
    public static let scanInterval: Duration = .milliseconds(2)

    public static func layout(_ gpio: GPIOKeypadConfiguration) -> MatrixLayout {
        MatrixLayout(rows: gpio.rows.count, columns: gpio.columns.count, labels: gpio.keys)
    }

    public static func settings(_ gpio: GPIOKeypadConfiguration) -> ScannerSettings {
        ScannerSettings(
            hasDiodes: gpio.hasDiodes, debouncePress: gpio.debouncePress,
            debounceRelease: gpio.debounceRelease, hold: gpio.hold, stuck: gpio.stuck)
    }

    public static func wiring(_ gpio: GPIOKeypadConfiguration) -> GPIOMatrixWiring {
        GPIOMatrixWiring(chip: gpio.chip, rows: gpio.rows, columns: gpio.columns, activeLow: gpio.activeLow)
    }

    /// Opens the chip and lines and returns a ready scan loop.
    public static func scanLoop(_ gpio: GPIOKeypadConfiguration) throws -> MatrixScanLoop {
        let backend = try GPIOBackendFactory.open(wiring(gpio))
        return MatrixScanLoop(
            scanner: MatrixScanner(layout: layout(gpio), settings: settings(gpio)), backend: backend,
            settle: gpio.settle, interval: scanInterval, timing: SystemScanTiming())
    }
}
