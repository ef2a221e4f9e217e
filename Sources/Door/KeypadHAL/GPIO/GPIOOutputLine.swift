import KioskPadCore
import Synchronization

#if canImport(CKeypadGPIO)
    import CKeypadGPIO
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// A single GPIO output line (push-pull), requested inactive and driven inactive again
/// before release. `key` names the config key in errors (`door.relay`, `feedback.buzzer`).
public final class GPIOOutputLine: DigitalOutput {
    public let key: String
    #if canImport(CKeypadGPIO)
        private let handle: Mutex<OpaquePointer>
    #endif

    public init(chip: String, line: LineReference, activeLow: Bool, key: String) throws {
        self.key = key
        #if canImport(CKeypadGPIO)
            var error = kp_error()
            let offset: Int32
            let name: String
            switch line {
            case .offset(let value): (offset, name) = (Int32(value), "")
            case .name(let value): (offset, name) = (-1, value)
            }
            guard let opened = kp_output_open(chip, offset, name, activeLow ? 1 : 0, GPIOMatrixBackend.consumer, &error) else {
                throw GPIOOutputLine.describe(error, chip: chip, line: line, key: key)
            }
            handle = Mutex(opened)
        #else
            throw KeyedError(key: key, message: "GPIO outputs need libgpiod support in this build", kind: .unavailable(retryable: false))
        #endif
    }

    deinit {
        #if canImport(CKeypadGPIO)
            handle.withLock { kp_output_close($0) }
        #endif
    }

    public func set(_ on: Bool) throws {
        #if canImport(CKeypadGPIO)
            let result = handle.withLock { kp_output_set($0, on ? 1 : 0) }
            guard result == 0 else {
                throw KeyedError(key: key, message: "setting the line failed: \(String(cString: strerror(errno)))", kind: .unavailable(retryable: true))
            }
        #endif
    }

    #if canImport(CKeypadGPIO)
        static func describe(_ error: kp_error, chip: String, line: LineReference, key: String) -> KeyedError {
            let detail = withUnsafeBytes(of: error.detail) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            switch Int(error.code) {
            case Int(KP_ERR_CHIP_NOT_FOUND.rawValue):
                return KeyedError(
                    key: "\(key).chip", message: "no GPIO chip '\(chip)'; present: \(detail.isEmpty ? "none" : detail)", kind: .unavailable(retryable: true))
            case Int(KP_ERR_PERMISSION.rawValue):
                return KeyedError(
                    key: "\(key).chip", message: "permission denied opening '\(chip)'; run as a member of group gpio or install the udev rule from deploy/",
                    kind: .unavailable(retryable: true))
            case Int(KP_ERR_LINE_RANGE.rawValue):
                return KeyedError(
                    key: "\(key).line", message: "\(line.spoken) is out of range; chip '\(chip)' has \(detail) lines", kind: .unavailable(retryable: true))
            case Int(KP_ERR_LINE_NAME.rawValue):
                return KeyedError(key: "\(key).line", message: "no line named '\(detail)' on chip '\(chip)'", kind: .unavailable(retryable: true))
            case Int(KP_ERR_BUSY.rawValue):
                return KeyedError(
                    key: "\(key).line", message: "\(line.spoken) on '\(chip)' is busy, held by '\(detail)'; stop that program or wire another line",
                    kind: .unavailable(retryable: true))
            default:
                return KeyedError(key: "\(key).line", message: "cannot use \(line.spoken) on '\(chip)': \(detail)", kind: .unavailable(retryable: true))
            }
        }
    #endif
}
