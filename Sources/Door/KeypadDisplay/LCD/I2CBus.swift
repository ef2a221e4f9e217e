/// The seam between the LCD driver and the I2C bus: whole-byte writes to one device.
/// ``LinuxI2CBus`` talks to `/dev/i2c-N`; the tests' `RecordingI2CBus` keeps the bytes.
public protocol I2CBus: AnyObject, Sendable {
    /// Writes `bytes` to the device, one I2C byte write each, in order.
    func write(_ bytes: [UInt8]) throws
}

/// An I2C failure, with the errno-style code and text; ``isDeviceMissing`` tells "nobody
/// answered at that address" (ENXIO, EIO, EREMOTEIO) apart from other trouble.
public struct I2CError: Error, Equatable, CustomStringConvertible {
    public let code: Int32
    public let message: String

    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    /// ENXIO (6), EIO (5), EREMOTEIO (121): no acknowledge from the address.
    public var isDeviceMissing: Bool { [5, 6, 121].contains(code) }

    public var description: String { message }
}
