import CKeypadI2C
import KioskPadCore

#if canImport(Glibc)
    import Glibc
#endif

/// `/dev/i2c-<bus>` with the device selected by `I2C_SLAVE`; each byte is one transfer (a
/// PCF8574 takes one byte per transfer), sent as SMBus "send byte", which is a one-byte
/// I2C write on the wire and also works on SMBus-only adapters.
public final class LinuxI2CBus: I2CBus, Sendable {
    // Immutable; the LCD worker thread is the only writer after init.
    public let bus: Int
    public let address: Int
    private let fd: Int32

    /// Opens the bus and checks that a device answers at `address`; errors name the config key and the fix.
    public init(bus: Int, address: Int) throws {
        self.bus = bus
        self.address = address
        var stage: Int32 = 0
        let opened = kp_i2c_open(Int32(bus), Int32(address), &stage)
        guard opened >= 0 else {
            let code = errno
            throw LinuxI2CBus.describe(code: code, stage: stage, bus: bus, address: address)
        }
        fd = opened
        do {
            try write([0x00])  // all backpack pins low, backlight off: a harmless probe
        } catch let error as I2CError {
            close(fd)
            throw LinuxI2CBus.describe(code: error.code, stage: 3, bus: bus, address: address)
        }
    }

    deinit {
        close(fd)
    }

    public func write(_ bytes: [UInt8]) throws {
        for byte in bytes {
            guard kp_i2c_send_byte(fd, byte) == 0 else {
                let code = errno
                throw I2CError(
                    code: code, message: "I2C write to 0x\(String(address, radix: 16)) on /dev/i2c-\(bus) failed: \(String(cString: strerror(code)))")
            }
        }
    }

    /// A start-up error that names `display.i2c_bus` or `display.i2c_address` and the fix
    /// (exit 1: the device is not there or not usable now).
    static func describe(code: Int32, stage: Int32, bus: Int, address: Int) -> KeyedError {
        let device = "/dev/i2c-\(bus)"
        let hex = "0x" + String(address, radix: 16)
        switch (stage, code) {
        case (1, ENOENT), (1, ENODEV):
            return KeyedError(
                key: "display.i2c_bus", message: "\(device) does not exist",
                fix:
                    "enable I2C (raspi-config > Interface Options > I2C, or dtparam=i2c_arm=on in /boot/firmware/config.txt), reboot, and check display.i2c_bus (ls /dev/i2c-*)",
                kind: .unavailable(retryable: true))
        case (1, EACCES), (1, EPERM):
            return KeyedError(
                key: "display.i2c_bus", message: "permission denied opening \(device)",
                fix: "run as a member of group i2c (sudo usermod -aG i2c USER, then log in again) or install the udev rule from deploy/",
                kind: .unavailable(retryable: true))
        case (2, EBUSY):
            return KeyedError(
                key: "display.i2c_address", message: "\(hex) on \(device) is claimed by a kernel driver", fix: "unbind it or use another address",
                kind: .unavailable(retryable: true))
        case (3, _) where [5, 6, 19, 121].contains(code):
            return KeyedError(
                key: "display.i2c_address", message: "no device answered at \(hex) on \(device)",
                fix:
                    "check the wiring (SDA to GPIO2, SCL to GPIO3, 5V, GND) and the address with `i2cdetect -y \(bus)` (PCF8574 backpacks are usually 0x27 or 0x3f)",
                kind: .unavailable(retryable: true))
        default:
            return KeyedError(
                key: stage == 2 ? "display.i2c_address" : "display.i2c_bus", message: "\(device) at \(hex): \(String(cString: strerror(code)))",
                kind: .unavailable(retryable: true))
        }
    }
}
