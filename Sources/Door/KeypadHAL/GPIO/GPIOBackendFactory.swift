import KioskPadCore

/// Opens the GPIO matrix backend, or says why this build cannot.
public enum GPIOBackendFactory {
    public static func open(_ wiring: GPIOMatrixWiring) throws -> any MatrixBackend {
        #if canImport(CKeypadGPIO)
            return try GPIOMatrixBackend(wiring: wiring)
        #else
            throw KeyedError(
                key: "keypad.driver",
                message: "gpio is not available: this build has no libgpiod support (install libgpiod-dev and build with the default GPIO trait)",
                kind: .unavailable(retryable: false))
        #endif
    }

    /// The libgpiod this build uses, e.g. `libgpiod 2.3 (v2 API)`.
    public static var library: String {
        #if canImport(CKeypadGPIO)
            return GPIOMatrixBackend.library
        #else
            return "no libgpiod (built without the GPIO trait)"
        #endif
    }

    /// The GPIO chips present, or an explanation.
    public static func chips() -> String {
        #if canImport(CKeypadGPIO)
            let list = GPIOMatrixBackend.listChips()
            return list.isEmpty ? "none" : list
        #else
            return "unknown (built without GPIO support)"
        #endif
    }
}
